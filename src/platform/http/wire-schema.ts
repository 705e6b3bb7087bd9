import type { ApiVersion } from './api-versions';

/**
 * The project's own wire schemas: plain JSON Schema objects (the OpenAPI 3.0 subset: type, format,
 * properties, required, items, enum, oneOf, additionalProperties), written from the facts of
 * HubSpot's API. The same object is Fastify's response schema (fast-json-stringify), the schema
 * `@nestjs/swagger` shows at /docs, and what the tests validate every answer against (ajv).
 * Objects are closed (`additionalProperties: false`): a schema says exactly what we send, so a
 * field it forgets fails the tests instead of being dropped silently by the serializer.
 */
export interface WireSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: 'int32' | 'int64' | 'uuid' | 'date-time';
  properties?: Record<string, WireSchema>;
  required?: string[];
  additionalProperties?: WireSchema | boolean;
  items?: WireSchema;
  enum?: Array<string | number | boolean>;
  oneOf?: WireSchema[];
  /** OpenAPI 3.0's `nullable` (ajv, fast-json-stringify and Swagger all read it). */
  nullable?: boolean;
  description?: string;
}

export const str = (): WireSchema => ({ type: 'string' });
/** A string or null (HubSpot's search sends a property without a value as null). */
export const nullableStr = (): WireSchema => ({ type: 'string', nullable: true });
export const strEnum = (...values: string[]): WireSchema => ({ type: 'string', enum: values });
export const uuid = (): WireSchema => ({ type: 'string', format: 'uuid' });
export const dateTime = (): WireSchema => ({ type: 'string', format: 'date-time' });
export const int32 = (): WireSchema => ({ type: 'integer', format: 'int32' });
export const int64 = (): WireSchema => ({ type: 'integer', format: 'int64' });
export const num = (): WireSchema => ({ type: 'number' });
export const bool = (): WireSchema => ({ type: 'boolean' });
export const arrayOf = (items: WireSchema): WireSchema => ({ type: 'array', items });
export const mapOf = (values: WireSchema): WireSchema => ({ type: 'object', additionalProperties: values });
export const oneOf = (...alternatives: WireSchema[]): WireSchema => ({ oneOf: alternatives });

/** A closed object: `required` fields always sent, `optional` ones sent when they apply. */
export function object(required: Record<string, WireSchema>, optional: Record<string, WireSchema> = {}): WireSchema {
  const names = Object.keys(required);
  return {
    type: 'object',
    properties: { ...required, ...optional },
    ...(names.length > 0 ? { required: names } : {}),
    additionalProperties: false,
  };
}

/** One success answer of one endpoint at one version, as HubSpot names it. */
export interface WireOperation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** HubSpot's path template, e.g. `/crm/limits/2026-03/calculated-properties`. */
  path: string;
  version: ApiVersion;
  status: number;
  /** HubSpot's name of the body (its component schema), e.g. `CalculatedPropertyLimitResponse`. */
  name: string;
  /** The file of HubSpot's spec collection that describes it, e.g. `2026-03/limitsTracking.json`. */
  specFile: string;
  schema: WireSchema;
}

/** One endpoint at every version an API exists in; `schema` may differ per version. */
export interface WireEndpoint {
  method: WireOperation['method'];
  /** Path after the API's prefix, e.g. `/calculated-properties` (`''` for the prefix itself). */
  path: string;
  status: number;
  name: string;
  schema: WireSchema | Partial<Record<ApiVersion, WireSchema>>;
  /** The versions it exists at, when not all of the API's. */
  versions?: ApiVersion[];
}

const isSchema = (s: WireEndpoint['schema']): s is WireSchema =>
  'type' in s || 'oneOf' in s || Object.keys(s).length === 0;

/**
 * The operations of one API: its path prefix and spec file per version, times its endpoints.
 * Example prefixes: `{ v3: '/crm/v3/limits', '2026-03': '/crm/limits/2026-03' }`.
 */
export function wireOperations(
  api: Partial<Record<ApiVersion, { prefix: string; specFile: string }>>,
  endpoints: WireEndpoint[],
): WireOperation[] {
  const out: WireOperation[] = [];
  for (const [version, at] of Object.entries(api) as Array<[ApiVersion, { prefix: string; specFile: string }]>) {
    for (const e of endpoints) {
      if (e.versions && !e.versions.includes(version)) continue;
      const schema = isSchema(e.schema) ? e.schema : e.schema[version];
      if (!schema) throw new Error(`no ${version} schema for ${e.method} ${at.prefix}${e.path}`);
      out.push({
        method: e.method,
        path: `${at.prefix}${e.path}`,
        version,
        status: e.status,
        name: e.name,
        specFile: at.specFile,
        schema,
      });
    }
  }
  return out;
}

/**
 * Fastify's response schema for a route (`@RouteSchema(serializedBy(...))`): only the success
 * status, so error bodies (any other status) keep their plain JSON.stringify and are never reshaped.
 */
export function serializedBy(status: number, schema: WireSchema): { response: Record<number, WireSchema> } {
  return { response: { [status]: schema } };
}

/**
 * One schema for /docs of a handler that serves several versions: the one they share, or a oneOf
 * of the distinct ones (the route's path says which version answers).
 */
export function anyVersion(byVersion: Partial<Record<ApiVersion, WireSchema>>): WireSchema {
  const distinct = new Map<string, WireSchema>();
  for (const s of Object.values(byVersion)) if (s) distinct.set(JSON.stringify(s), s);
  const all = [...distinct.values()];
  return all.length === 1 ? all[0]! : oneOf(...all);
}
