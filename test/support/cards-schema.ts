import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Checks response bodies against HubSpot's official publicAppCrmCards.json, read in place from
 * ../shared/reference/hubspot-openapi (never copied into the project). Resolves $ref against
 * components.schemas; checks required fields, types, integer formats, enums, date-times, array
 * items and oneOf. Only what the cards spec uses.
 */
export interface CardsSchema {
  $ref?: string;
  type?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, CardsSchema>;
  items?: CardsSchema;
  enum?: unknown[];
  oneOf?: CardsSchema[];
  additionalProperties?: CardsSchema | boolean;
}

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: CardsSchema }> }>;
}

export interface CardsSpec {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, CardsSchema> };
}

export const CARDS_SPEC_FILE = resolve(
  __dirname,
  '../../..',
  'shared/reference/hubspot-openapi/publicAppCrmCards.json',
);

let cached: CardsSpec | null = null;
export function cardsSpec(): CardsSpec {
  return (cached ??= JSON.parse(readFileSync(CARDS_SPEC_FILE, 'utf8')) as CardsSpec);
}

const INT32 = [-(2 ** 31), 2 ** 31 - 1];

export function checkSchema(schema: CardsSchema, value: unknown, path = '$', spec: CardsSpec = cardsSpec()): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = spec.components.schemas[name];
    return target ? checkSchema(target, value, path, spec) : [`${path}: unresolved ${schema.$ref}`];
  }
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s) => checkSchema(s, value, path, spec).length === 0);
    return matching.length === 1 ? [] : [`${path}: matches ${matching.length} of the oneOf schemas, expected 1`];
  }
  if (value === null || value === undefined) return [`${path}: is ${String(value)}`];
  const errors: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected object`];
      const obj = value as Record<string, unknown>;
      for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${path}.${r}: required`);
      for (const [k, v] of Object.entries(obj)) {
        const sub = schema.properties?.[k];
        if (sub) errors.push(...checkSchema(sub, v, `${path}.${k}`, spec));
        else if (typeof schema.additionalProperties === 'object') {
          errors.push(...checkSchema(schema.additionalProperties, v, `${path}.${k}`, spec));
        }
      }
      break;
    }
    case 'array':
      if (!Array.isArray(value)) return [`${path}: expected array`];
      if (schema.items) value.forEach((v, i) => errors.push(...checkSchema(schema.items!, v, `${path}[${i}]`, spec)));
      break;
    case 'string':
      if (typeof value !== 'string') errors.push(`${path}: expected string`);
      else if (
        schema.format === 'date-time' &&
        (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value)))
      ) {
        errors.push(`${path}: expected date-time`);
      }
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) errors.push(`${path}: expected integer`);
      else if (schema.format === 'int32' && (value < INT32[0]! || value > INT32[1]!))
        errors.push(`${path}: outside int32`);
      else if (schema.format === 'int64' && !Number.isSafeInteger(value)) errors.push(`${path}: not a safe int64`);
      break;
    case 'number':
      if (typeof value !== 'number') errors.push(`${path}: expected number`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') errors.push(`${path}: expected boolean`);
      break;
    default:
      break;
  }
  return errors;
}

/** Errors of a success body against the response schema of `method path` for `status`. */
export function checkCardsResponse(method: string, path: string, status: number, body: unknown): string[] {
  const op = cardsSpec().paths[path]?.[method.toLowerCase()];
  if (!op) return [`no operation ${method} ${path} in the spec`];
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) return [`no ${status} JSON schema for ${method} ${path}`];
  return checkSchema(schema, body);
}

/** Checks a body against a named component schema (e.g. Error). */
export function checkCardsComponent(name: string, body: unknown): string[] {
  return checkSchema({ $ref: `#/components/schemas/${name}` }, body);
}

const specsByFile = new Map<string, CardsSpec>();
/**
 * The same check against another version's cards spec (`2026-03/publicAppCrmCards.json`), path
 * as that spec names it (`/crm/extensions/cards-dev/2026-03/{appId}`).
 */
export function checkCardsResponseIn(file: string, method: string, path: string, status: number, body: unknown) {
  let spec = specsByFile.get(file);
  if (!spec) {
    spec = JSON.parse(readFileSync(resolve(CARDS_SPEC_FILE, '..', file), 'utf8')) as CardsSpec;
    specsByFile.set(file, spec);
  }
  const op = spec.paths[path]?.[method.toLowerCase()];
  if (!op) return [`no operation ${method} ${path} in ${file}`];
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) return [`no ${status} JSON schema for ${method} ${path} in ${file}`];
  return checkSchema(schema, body, '$', spec);
}
