import { oauthWireComponents } from '../../src/oauth/http/wire-schemas';
import { ERROR_WIRE_SCHEMA } from '../../src/platform/errors/error-wire-schema';
import { wireProblems } from './wire-schemas';

/**
 * Checks OAuth answers against the project's own wire schemas, by HubSpot's schema names and the
 * version in the path (v1 unless given). Every schema is closed, so the check is always strict
 * (undeclared properties are problems); `strict` is kept for the callers that state it.
 */
type Version = 'v3' | '2026-03' | '2026-09';

export function oauthSchemaProblems(
  name: string,
  value: unknown,
  options: { strict?: boolean; version?: Version } = {},
): string[] {
  const version = options.version ?? 'v1';
  const schema = name === 'Error' ? ERROR_WIRE_SCHEMA : oauthWireComponents(version)[name];
  if (!schema) throw new Error(`the ${version} OAuth wire schemas have no ${name}`);
  return wireProblems(schema, value);
}

/** Whether a version has a schema of that name (2026-09 has no client_credentials grant). */
export function specHasSchema(version: Version, name: string): boolean {
  return name === 'Error' || name in oauthWireComponents(version);
}

export function expectOAuthSchema(
  name: string,
  value: unknown,
  options: { strict?: boolean; version?: Version } = {},
): void {
  const problems = oauthSchemaProblems(name, value, options);
  if (problems.length > 0) throw new Error(`response does not match ${name}:\n  ${problems.join('\n  ')}`);
}
