import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A tiny checker for the OpenAPI 3.0 schemas of HubSpot's official specs, read from
 * ../shared/reference/hubspot-openapi (never copied into the project): resolves $ref against
 * components.schemas and checks required fields, types, integer formats and array items.
 */
interface OpenApiSchema {
  $ref?: string;
  type?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema | boolean;
  enum?: unknown[];
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: OpenApiSchema }> }> }>
  >;
  components: { schemas: Record<string, OpenApiSchema> };
}

export const SPEC_DIR = resolve(__dirname, '../../..', 'shared/reference/hubspot-openapi');

export function loadSpec(file: string): OpenApiDocument {
  return JSON.parse(readFileSync(resolve(SPEC_DIR, file), 'utf8')) as OpenApiDocument;
}

export function validateSchema(doc: OpenApiDocument, schema: OpenApiSchema, value: unknown, path = '$'): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) return [`${path}: unresolved ${schema.$ref}`];
    return validateSchema(doc, target, value, path);
  }
  const errors: string[] = [];
  if (value === null || value === undefined) return [`${path}: is ${value === null ? 'null' : 'missing'}`];
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  switch (schema.type) {
    case 'object':
    case undefined:
      if (schema.type === 'object' || schema.properties) {
        if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected object`];
        const obj = value as Record<string, unknown>;
        for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${path}.${r}: required`);
        for (const [k, v] of Object.entries(obj)) {
          const sub = schema.properties?.[k];
          if (sub) errors.push(...validateSchema(doc, sub, v, `${path}.${k}`));
          else if (typeof schema.additionalProperties === 'object') {
            errors.push(...validateSchema(doc, schema.additionalProperties, v, `${path}.${k}`));
          }
        }
      }
      break;
    case 'array':
      if (!Array.isArray(value)) return [`${path}: expected array`];
      if (schema.items) value.forEach((v, i) => errors.push(...validateSchema(doc, schema.items!, v, `${path}[${i}]`)));
      break;
    case 'string':
      if (typeof value !== 'string') errors.push(`${path}: expected string, got ${typeof value}`);
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value))
        errors.push(`${path}: expected integer, got ${JSON.stringify(value)}`);
      else if (schema.format === 'int32' && (value < -(2 ** 31) || value >= 2 ** 31))
        errors.push(`${path}: out of int32 range`);
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        errors.push(`${path}: expected number, got ${JSON.stringify(value)}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') errors.push(`${path}: expected boolean`);
      break;
    default:
      errors.push(`${path}: unsupported schema type ${schema.type}`);
  }
  return errors;
}

/** Errors of `body` against the success response of `method path` in `file` ([] when it conforms). */
export function validateResponse(file: string, method: string, path: string, body: unknown, status = '200'): string[] {
  const doc = loadSpec(file);
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) return [`no operation ${method} ${path} in ${file}`];
  const schema = op.responses[status]?.content?.['application/json']?.schema;
  if (!schema) return [`no ${status} application/json schema for ${method} ${path}`];
  return validateSchema(doc, schema, body);
}

export function validateComponent(file: string, name: string, value: unknown): string[] {
  const doc = loadSpec(file);
  return validateSchema(doc, { $ref: `#/components/schemas/${name}` }, value);
}
