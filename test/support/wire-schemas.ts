import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { WEBHOOKS_WIRE_OPERATIONS } from '../../src/app-webhooks/http/wire-schemas';
import { CARDS_WIRE_OPERATIONS } from '../../src/cards/http/wire-schemas';
import { CRM_ASSOCIATIONS_WIRE_OPERATIONS } from '../../src/crm-associations/http/wire-schemas';
import { CRM_PIPELINES_WIRE_OPERATIONS } from '../../src/crm-pipelines/http/wire-schemas';
import { CRM_RECORDS_WIRE_OPERATIONS } from '../../src/crm-records/http/wire-schemas';
import { CRM_SEARCH_WIRE_OPERATIONS } from '../../src/crm-search/http/wire-schemas';
import { LIMITS_WIRE_COMPONENTS, LIMITS_WIRE_OPERATIONS } from '../../src/crm-schema/http/wire-schemas';
import { OAUTH_WIRE_OPERATIONS } from '../../src/oauth/http/wire-schemas';
import { ERROR_WIRE_SCHEMA } from '../../src/platform/errors/error-wire-schema';
import type { WireOperation, WireSchema } from '../../src/platform/http/wire-schema';
import { JOURNAL_WIRE_OPERATIONS } from '../../src/webhooks-journal/http/wire-schemas';

/**
 * Validates answers against the project's own wire schemas (src/<module>/http/wire-schemas.ts), the
 * same objects Fastify serializes with and /docs shows. ajv checks required fields, types, enums,
 * int32/int64, uuid, date-time, oneOf (exactly one) and, since every object is closed, flags any
 * property a schema does not declare.
 */
export const ALL_WIRE_OPERATIONS: readonly WireOperation[] = [
  ...OAUTH_WIRE_OPERATIONS,
  ...CARDS_WIRE_OPERATIONS,
  ...LIMITS_WIRE_OPERATIONS,
  ...CRM_RECORDS_WIRE_OPERATIONS,
  ...CRM_SEARCH_WIRE_OPERATIONS,
  ...CRM_PIPELINES_WIRE_OPERATIONS,
  ...CRM_ASSOCIATIONS_WIRE_OPERATIONS,
  ...WEBHOOKS_WIRE_OPERATIONS,
  ...JOURNAL_WIRE_OPERATIONS,
];

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv, ['uuid', 'date-time', 'int32', 'int64']);
// By schema object, then by its JSON: versions that share a body compile it once (ajv's compile,
// not the validation, is what costs).
const compiled = new WeakMap<WireSchema, ValidateFunction>();
const compiledByJson = new Map<string, ValidateFunction>();

/** `/byObjectType/0/objectTypeId` -> `$.byObjectType[0].objectTypeId`. */
function jsonPath(pointer: string): string {
  return (
    '$' +
    pointer
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')
  );
}

function describe(e: ErrorObject, body: unknown): string {
  const at = jsonPath(e.instancePath);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at}.${String(params.missingProperty)}: required`;
    case 'additionalProperties':
      return `${at}.${String(params.additionalProperty)}: not declared by the schema`;
    case 'type':
      return `${at}: expected ${String(params.type)}, got ${JSON.stringify(valueAt(body, e.instancePath))}`;
    case 'enum':
      return `${at}: ${JSON.stringify(valueAt(body, e.instancePath))} not in enum ${JSON.stringify(params.allowedValues)}`;
    case 'format':
      return `${at}: expected ${String(params.format)}, got ${JSON.stringify(valueAt(body, e.instancePath))}`;
    case 'oneOf':
      return `${at}: matches ${params.passingSchemas ? 'more than one' : 'none'} of the oneOf schemas`;
    default:
      return `${at}: ${e.message ?? e.keyword}`;
  }
}

function valueAt(body: unknown, pointer: string): unknown {
  let v = body;
  for (const p of pointer.split('/').slice(1)) v = (v as Record<string, unknown> | undefined)?.[p];
  return v;
}

/** Problems of `body` against `schema`; [] when it conforms. */
export function wireProblems(schema: WireSchema, body: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    const json = JSON.stringify(schema);
    validate = compiledByJson.get(json) ?? ajv.compile(schema);
    compiledByJson.set(json, validate);
    compiled.set(schema, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => describe(e, body));
}

/** The operation HubSpot calls `method path` answering `status` (path as HubSpot's spec names it). */
export function wireOperation(method: string, path: string, status: number): WireOperation | undefined {
  const m = method.toUpperCase();
  return ALL_WIRE_OPERATIONS.find((o) => o.method === m && o.path === path && o.status === status);
}

/**
 * Problems of a success answer against our schema of that operation. `specFile`, when given, must be
 * the spec file that operation is compared with by the conformance suite (test/conformance).
 */
export function operationProblems(
  method: string,
  path: string,
  status: number,
  body: unknown,
  specFile?: string,
): string[] {
  const op = wireOperation(method, path, status);
  if (!op) return [`no wire schema for ${method} ${path} answering ${status}`];
  if (specFile !== undefined && op.specFile !== specFile)
    return [`${method} ${path} is HubSpot's ${op.specFile}, not ${specFile}`];
  return wireProblems(op.schema, body);
}

/** Component schemas by HubSpot's names, outside OAuth (OAuth's differ per version: oauth-schema.ts). */
export function componentSchema(name: string): WireSchema | undefined {
  return name === 'Error' ? ERROR_WIRE_SCHEMA : LIMITS_WIRE_COMPONENTS[name];
}
