import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A tiny OpenAPI schema checker for the official oauth.json (read from ../shared/reference, never
 * vendored): $ref against components.schemas, required fields, types, enums, arrays, oneOf.
 * `strict` also flags properties the schema does not declare (wire compatibility both ways).
 */
interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  oneOf?: Schema[];
  additionalProperties?: Schema | boolean;
}

interface Spec {
  components: { schemas: Record<string, Schema> };
}

const SPEC_DIR = resolve(__dirname, '../../..', 'shared/reference/hubspot-openapi');
const loadSpec = (file: string) => JSON.parse(readFileSync(resolve(SPEC_DIR, file), 'utf8')) as Spec;
const v1Spec = loadSpec('oauth.json');
/** The OAuth specs of HubSpot's current platform, by the version in their paths. */
const currentSpecs: Record<'v3' | '2026-03' | '2026-09', Spec> = {
  v3: loadSpec('oauth-v3/oauth.json'),
  '2026-03': loadSpec('2026-03/oauth.json'),
  '2026-09': loadSpec('2026-09/oauth.json'),
};
let spec = v1Spec;

function resolveRef(s: Schema): Schema {
  if (!s.$ref) return s;
  const name = s.$ref.replace('#/components/schemas/', '');
  const target = spec.components.schemas[name];
  if (!target) throw new Error(`unknown $ref ${s.$ref}`);
  return resolveRef(target);
}

function check(value: unknown, schema: Schema, path: string, strict: boolean, problems: string[]): void {
  const s = resolveRef(schema);
  if (s.oneOf) {
    const results = s.oneOf.map((alt) => {
      const p: string[] = [];
      check(value, alt, path, strict, p);
      return p;
    });
    if (!results.some((p) => p.length === 0))
      problems.push(`${path}: matches no oneOf alternative (${results.map((p) => p.join('; ')).join(' | ')})`);
    return;
  }
  if (s.enum && !s.enum.includes(value))
    problems.push(`${path}: ${JSON.stringify(value)} not in enum ${JSON.stringify(s.enum)}`);
  switch (s.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        problems.push(`${path}: expected object, got ${JSON.stringify(value)}`);
        return;
      }
      const obj = value as Record<string, unknown>;
      for (const r of s.required ?? []) if (!(r in obj)) problems.push(`${path}.${r}: required but missing`);
      for (const [k, v] of Object.entries(obj)) {
        const prop = s.properties?.[k];
        if (prop) check(v, prop, `${path}.${k}`, strict, problems);
        else if (typeof s.additionalProperties === 'object')
          check(v, s.additionalProperties, `${path}.${k}`, strict, problems);
        else if (strict) problems.push(`${path}.${k}: not declared by the schema`);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) problems.push(`${path}: expected array`);
      else if (s.items) value.forEach((v, i) => check(v, s.items!, `${path}[${i}]`, strict, problems));
      return;
    case 'string':
      if (typeof value !== 'string') problems.push(`${path}: expected string, got ${JSON.stringify(value)}`);
      else if (s.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
        problems.push(`${path}: expected a uuid`);
      }
      return;
    case 'integer':
      if (!Number.isInteger(value)) problems.push(`${path}: expected integer, got ${JSON.stringify(value)}`);
      else if (s.format === 'int32' && ((value as number) < -(2 ** 31) || (value as number) >= 2 ** 31))
        problems.push(`${path}: outside int32`);
      return;
    case 'number':
      if (typeof value !== 'number') problems.push(`${path}: expected number`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') problems.push(`${path}: expected boolean`);
      return;
    default:
      return;
  }
}

/** Problems of `value` against components.schemas[name]; [] when it conforms. */
export function oauthSchemaProblems(
  name: string,
  value: unknown,
  options: { strict?: boolean; version?: keyof typeof currentSpecs } = {},
): string[] {
  spec = options.version ? currentSpecs[options.version] : v1Spec;
  try {
    if (!spec.components.schemas[name])
      throw new Error(`the ${options.version ?? 'v1'} oauth.json has no schema ${name}`);
    const problems: string[] = [];
    check(value, { $ref: `#/components/schemas/${name}` }, name, options.strict ?? false, problems);
    return problems;
  } finally {
    spec = v1Spec;
  }
}

/** Whether a version's spec declares a schema (2026-09 dropped the token endpoint's 200 schemas). */
export function specHasSchema(version: keyof typeof currentSpecs, name: string): boolean {
  return name in currentSpecs[version].components.schemas;
}

export function expectOAuthSchema(
  name: string,
  value: unknown,
  options: { strict?: boolean; version?: keyof typeof currentSpecs } = {},
): void {
  const problems = oauthSchemaProblems(name, value, options);
  if (problems.length > 0) throw new Error(`response does not match ${name}:\n  ${problems.join('\n  ')}`);
}
