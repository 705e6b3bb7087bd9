import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import { parseBooleanParam } from '../../platform/http/boolean-param';
import { invalidInput, tooManyInputs, tooManyInputsWithHistory } from '../domain/record-errors';

/**
 * Query and body values of the records API, read by hand so each bad field answers HubSpot's
 * VALIDATION_ERROR with `in` naming it (a body of the wrong shape, a value of the wrong type).
 */
export type Query = Record<string, string | string[] | undefined>;

export const MAX_BATCH_INPUTS = 100;
export const MAX_BATCH_INPUTS_WITH_HISTORY = 50;
const MAX_NAMES = 1000;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function fail(message: string, at: string, code = 'INVALID'): never {
  throw invalidInput(`Invalid input: ${at}`, [{ message, in: at, code }]);
}

/** `archived`: HubSpot's spelling in any case (Python's client sends `True`), through the one boolean parser. */
export function parseBoolean(raw: string | string[] | undefined, name: string): boolean {
  return parseBooleanParam(raw, name, false);
}

/** `limit`: default 10, at most 100 (50 with propertiesWithHistory). */
export function parseLimit(raw: string | string[] | undefined, max: number): number {
  const v = first(raw);
  if (v === undefined || v === '') return 10;
  if (!/^\d{1,6}$/.test(v) || Number(v) < 1) return fail('limit must be a positive integer', 'limit');
  if (Number(v) > max) return fail(`limit must be at most ${max}`, 'limit');
  return Number(v);
}

/** `after`: the cursor a page gave (the last id it held). */
export function parseAfter(raw: string | string[] | undefined): number {
  const v = first(raw);
  if (v === undefined || v === '') return 0;
  if (!/^\d{1,15}$/.test(v)) return fail('after must be the paging cursor of a previous page', 'after');
  return Number(v);
}

/** Comma-separated names (also repeated parameters); undefined when none are given. */
export function parseNames(raw: unknown, name: string): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.some((v) => typeof v !== 'string')) return fail(`${name} is a list of property names`, name);
  const names = (list as string[]).flatMap((v) => v.split(',')).map((v) => v.trim());
  if (names.length > MAX_NAMES || names.some((n) => n.length > 200 || n.includes('\u0000')))
    return fail(`${name} is a comma-separated list of property names`, name);
  const set = [...new Set(names.filter((n) => n !== ''))];
  return set.length > 0 ? set : undefined;
}

export function parseIdProperty(raw: unknown, at = 'idProperty'): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string' || raw.length > 200 || !/^[A-Za-z0-9_.-]+$/.test(raw))
    return fail('idProperty must be a property name', at);
  return raw;
}

export function parseSegment(raw: string, name: string): string {
  if (raw.length === 0 || raw.length > 200 || raw.includes('\u0000')) return fail(`${name} is not valid`, name);
  return raw;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A record's `properties`: string values (numbers and booleans as HubSpot takes them; null clears). */
export function parseProperties(raw: unknown, at: string, problems: ErrorDetail[]): Record<string, string> {
  if (!isObject(raw)) {
    problems.push({ message: `${at} must be an object of property names to values`, in: at, code: 'INVALID' });
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') out[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[name] = String(value);
    else if (value === null) out[name] = '';
    else problems.push({ message: `${at}.${name} must be a string`, in: `${at}.${name}`, code: 'INVALID' });
  }
  return out;
}

function throwIfAny(problems: ErrorDetail[]): void {
  if (problems.length > 0) {
    throw invalidInput(
      `Invalid input (details will vary based on the error): ${[...new Set(problems.map((p) => p.in))].join(', ')}`,
      problems.slice(0, 20),
    );
  }
}

/** POST /{objectType} and PATCH /{objectType}/{id}: `{ properties, associations? }`. */
export function parseRecordBody(body: unknown): { properties: Record<string, string> } {
  const problems: ErrorDetail[] = [];
  if (!isObject(body)) fail('the body must be a JSON object with properties', 'body');
  const properties = parseProperties(body.properties ?? {}, 'properties', problems);
  if (body.associations !== undefined && !Array.isArray(body.associations))
    problems.push({ message: 'associations must be an array', in: 'associations', code: 'INVALID' });
  throwIfAny(problems);
  return { properties };
}

/** A batch body's `inputs`: an array of objects, at most `max` of them. */
function inputsOf(body: unknown, max: number): Array<Record<string, unknown>> {
  if (!isObject(body)) fail('the body must be a JSON object with inputs', 'body');
  const inputs = body.inputs;
  if (!Array.isArray(inputs)) return fail('inputs must be an array', 'inputs');
  if (inputs.length > max) throw tooManyInputs(inputs.length, max);
  const bad = inputs.findIndex((i) => !isObject(i));
  if (bad >= 0) fail(`inputs[${bad}] must be an object`, `inputs[${bad}]`);
  return inputs as Array<Record<string, unknown>>;
}

function idOf(raw: unknown, at: string, problems: ErrorDetail[]): string {
  if (typeof raw === 'string' && raw.length > 0 && raw.length <= 1000 && !raw.includes('\u0000')) return raw;
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return String(raw);
  problems.push({ message: `${at} must be a string`, in: at, code: 'INVALID' });
  return '';
}

export function parseBatchCreate(body: unknown): Array<{ properties: Record<string, string> }> {
  const problems: ErrorDetail[] = [];
  const inputs = inputsOf(body, MAX_BATCH_INPUTS).map((input, i) => ({
    properties: parseProperties(input.properties ?? {}, `inputs[${i}].properties`, problems),
  }));
  throwIfAny(problems);
  return inputs;
}

export function parseBatchUpdate(
  body: unknown,
): Array<{ id: string; idProperty?: string; properties: Record<string, string> }> {
  const problems: ErrorDetail[] = [];
  const inputs = inputsOf(body, MAX_BATCH_INPUTS).map((input, i) => {
    const idProperty = parseIdProperty(input.idProperty, `inputs[${i}].idProperty`);
    return {
      id: idOf(input.id, `inputs[${i}].id`, problems),
      ...(idProperty !== undefined ? { idProperty } : {}),
      properties: parseProperties(input.properties ?? {}, `inputs[${i}].properties`, problems),
    };
  });
  throwIfAny(problems);
  return inputs;
}

export function parseBatchUpsert(
  body: unknown,
): Array<{ id: string; idProperty: string; properties: Record<string, string> }> {
  const problems: ErrorDetail[] = [];
  const inputs = inputsOf(body, MAX_BATCH_INPUTS).map((input, i) => {
    const idProperty = parseIdProperty(input.idProperty, `inputs[${i}].idProperty`);
    if (idProperty === undefined)
      problems.push({ message: 'idProperty is required', in: `inputs[${i}].idProperty`, code: 'REQUIRED' });
    return {
      id: idOf(input.id, `inputs[${i}].id`, problems),
      idProperty: idProperty ?? '',
      properties: parseProperties(input.properties ?? {}, `inputs[${i}].properties`, problems),
    };
  });
  throwIfAny(problems);
  return inputs;
}

export function parseBatchIds(body: unknown): string[] {
  const problems: ErrorDetail[] = [];
  const ids = inputsOf(body, MAX_BATCH_INPUTS).map((input, i) => idOf(input.id, `inputs[${i}].id`, problems));
  throwIfAny(problems);
  return ids;
}

/** POST .../batch/read: ids, the properties to show, with history (at most 50 inputs then), by idProperty. */
export function parseBatchRead(body: unknown): {
  ids: string[];
  properties?: string[];
  propertiesWithHistory?: string[];
  idProperty?: string;
} {
  const b = isObject(body) ? body : {};
  const propertiesWithHistory = parseNames(b.propertiesWithHistory, 'propertiesWithHistory');
  const properties = parseNames(b.properties, 'properties');
  const idProperty = parseIdProperty(b.idProperty);
  const ids = parseBatchIds(body);
  if (propertiesWithHistory && ids.length > MAX_BATCH_INPUTS_WITH_HISTORY)
    throw tooManyInputsWithHistory(ids.length, MAX_BATCH_INPUTS_WITH_HISTORY);
  return {
    ids,
    ...(properties ? { properties } : {}),
    ...(propertiesWithHistory ? { propertiesWithHistory } : {}),
    ...(idProperty ? { idProperty } : {}),
  };
}

/** POST .../merge: HubSpot's PublicMergeInput. */
export function parseMerge(body: unknown): { primaryObjectId: string; objectIdToMerge: string } {
  const problems: ErrorDetail[] = [];
  if (!isObject(body)) fail('the body must be a JSON object', 'body');
  const primaryObjectId = idOf(body.primaryObjectId, 'primaryObjectId', problems);
  const objectIdToMerge = idOf(body.objectIdToMerge, 'objectIdToMerge', problems);
  throwIfAny(problems);
  return { primaryObjectId, objectIdToMerge };
}

/** POST .../gdpr-delete: HubSpot's PublicGdprDeleteInput. */
export function parseGdprDelete(body: unknown): { objectId: string; idProperty?: string } {
  const problems: ErrorDetail[] = [];
  if (!isObject(body)) fail('the body must be a JSON object', 'body');
  const objectId = idOf(body.objectId, 'objectId', problems);
  const idProperty = parseIdProperty(body.idProperty);
  throwIfAny(problems);
  return { objectId, ...(idProperty !== undefined ? { idProperty } : {}) };
}
