import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { WireSchema } from '../../src/platform/http/wire-schema';

/**
 * Compares the project's wire schemas with HubSpot's official OpenAPI files, when a user hands
 * those in (HUBSPOT_OPENAPI_DIR; they are never part of the project). Only what a client of
 * HubSpot's API relies on: every field HubSpot's schema requires is always sent by us with the
 * same type, integer formats no wider, string formats kept, and enum values HubSpot knows.
 */
export interface OfficialSchema {
  $ref?: string;
  type?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, OfficialSchema>;
  items?: OfficialSchema;
  additionalProperties?: OfficialSchema | boolean;
  enum?: unknown[];
  oneOf?: OfficialSchema[];
}

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: OfficialSchema }> }>;
}

export interface OfficialDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, OfficialSchema> };
}

function resolveRef(doc: OfficialDocument, s: OfficialSchema): OfficialSchema {
  let seen = 0;
  while (s.$ref) {
    const target = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
    if (!target || ++seen > 32) throw new Error(`unresolved ${s.$ref}`);
    s = target;
  }
  return s;
}

const typeOf = (s: { type?: string; properties?: unknown }) => s.type ?? (s.properties ? 'object' : undefined);

/** Problems of our schema against HubSpot's; [] when every client of HubSpot's could read ours. */
export function conformanceProblems(
  ours: WireSchema,
  official: OfficialSchema,
  doc: OfficialDocument,
  path = '$',
): string[] {
  const theirs = resolveRef(doc, official);
  const ourAlternatives = ours.oneOf ?? [ours];
  if (theirs.oneOf) {
    // Each kind of body we send must be one of HubSpot's kinds.
    return ourAlternatives.flatMap((alt, i) => {
      const tries = theirs.oneOf!.map((t) => conformanceProblems(alt, t, doc, path));
      if (tries.some((p) => p.length === 0)) return [];
      return [
        `${path}: our oneOf alternative ${i} matches none of HubSpot's (${tries.map((p) => p.join('; ')).join(' | ')})`,
      ];
    });
  }
  if (ours.oneOf) return ourAlternatives.flatMap((alt) => conformanceProblems(alt, theirs, doc, path));

  const problems: string[] = [];
  const want = typeOf(theirs);
  const have = typeOf(ours);
  if (want !== undefined && have !== want && !(want === 'number' && have === 'integer')) {
    return [`${path}: ours is ${have ?? 'untyped'}, HubSpot's is ${want}`];
  }
  if (want === 'integer' && theirs.format === 'int32' && ours.format !== 'int32') {
    problems.push(`${path}: ours is ${ours.format ?? 'unbounded'}, HubSpot's is int32`);
  }
  if (want === 'string' && theirs.format !== undefined && ours.format !== theirs.format) {
    problems.push(`${path}: ours has format ${ours.format ?? 'none'}, HubSpot's ${theirs.format}`);
  }
  if (theirs.enum) {
    if (!ours.enum) problems.push(`${path}: HubSpot's is an enum, ours is not`);
    else {
      const unknown = ours.enum.filter((v) => !theirs.enum!.includes(v));
      if (unknown.length > 0) problems.push(`${path}: ${JSON.stringify(unknown)} not in HubSpot's enum`);
    }
  }
  if (want === 'object') {
    const required = new Set(ours.required ?? []);
    for (const name of theirs.required ?? []) {
      if (!ours.properties?.[name]) problems.push(`${path}.${name}: required by HubSpot, missing from ours`);
      else if (!required.has(name)) problems.push(`${path}.${name}: required by HubSpot, optional in ours`);
    }
    for (const [name, sub] of Object.entries(theirs.properties ?? {})) {
      const mine = ours.properties?.[name];
      if (mine) problems.push(...conformanceProblems(mine, sub, doc, `${path}.${name}`));
    }
    if (typeof theirs.additionalProperties === 'object' && typeof ours.additionalProperties === 'object') {
      problems.push(...conformanceProblems(ours.additionalProperties, theirs.additionalProperties, doc, `${path}{}`));
    }
  }
  if (want === 'array' && theirs.items && ours.items) {
    problems.push(...conformanceProblems(ours.items, theirs.items, doc, `${path}[]`));
  }
  return problems;
}

/** HubSpot's schema of `method path` answering `status` (JSON), or undefined. */
export function officialResponseSchema(
  doc: OfficialDocument,
  method: string,
  path: string,
  status: number,
): OfficialSchema | undefined {
  return doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
}

// HubSpot's files carry `example` and `x-*` keywords: not strict. Their objects are open.
const lenient = new Ajv({ allErrors: true, strict: false });
addFormats(lenient, ['uuid', 'date-time', 'int32', 'int64']);

/** Problems of a recorded answer against HubSpot's schema (its $refs resolved within its file). */
export function officialProblems(doc: OfficialDocument, schema: OfficialSchema, body: unknown): string[] {
  const validate = lenient.compile({ ...schema, components: doc.components });
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `$${e.instancePath.replace(/\//g, '.')}: ${e.message ?? e.keyword}`);
}
