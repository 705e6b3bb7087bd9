import { componentSchema, operationProblems, wireProblems } from './wire-schemas';

/**
 * Checks limits, properties, schemas and account-info answers against the project's own wire
 * schemas (see wire-schemas.ts). `file` names HubSpot's spec file of the operation, as the
 * conformance suite compares it; a mismatch is reported.
 */
export function validateResponse(file: string, method: string, path: string, body: unknown, status = '200'): string[] {
  return operationProblems(method, path, Number(status), body, file);
}

export function validateComponent(_file: string, name: string, value: unknown): string[] {
  const schema = componentSchema(name);
  if (!schema) return [`no wire schema named ${name}`];
  return wireProblems(schema, value);
}
