import { componentSchema, operationProblems, wireProblems } from './wire-schemas';

/** Checks cards-dev answers against the project's own wire schemas (see wire-schemas.ts). */
export function checkCardsResponse(method: string, path: string, status: number, body: unknown): string[] {
  return operationProblems(method, path, status, body);
}

/** Checks a body against a named schema (e.g. Error). */
export function checkCardsComponent(name: string, body: unknown): string[] {
  const schema = componentSchema(name);
  return schema ? wireProblems(schema, body) : [`no wire schema named ${name}`];
}

/** The same check at a dated path (`/crm/extensions/cards-dev/2026-03/{appId}`), of that version's spec file. */
export function checkCardsResponseIn(file: string, method: string, path: string, status: number, body: unknown) {
  return operationProblems(method, path, status, body, file);
}
