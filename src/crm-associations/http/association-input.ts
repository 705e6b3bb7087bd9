import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import type { PairInput, TypeSpec } from '../application/crm-associations.handler';
import { invalidAssociationInput, requestBodyExpected, tooManyInputs } from '../domain/association-errors';

/** Bodies and query values of the associations v4 API, read by hand: every bad field reported at once. */
export const MAX_BATCH_INPUTS = 1_000;
const CATEGORIES = new Set(['HUBSPOT_DEFINED', 'USER_DEFINED', 'INTEGRATOR_DEFINED', 'WORK']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(problems: ErrorDetail[]): void {
  if (problems.length > 0) {
    throw invalidAssociationInput(
      `Invalid input JSON: ${problems.map((p) => `${p.in}: ${p.message}`).join('; ')}`,
      problems,
    );
  }
}

/** A record id: HubSpot's are numeric strings (numbers accepted). */
export function recordId(v: unknown, at: string, problems: ErrorDetail[]): number | undefined {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !/^\d{1,15}$/.test(s)) {
    problems.push({ message: `${at} must be a numeric record id`, in: at, code: 'INVALID' });
    return undefined;
  }
  return Number(s);
}

export function parsePathRecordId(raw: string, name: string): number {
  const problems: ErrorDetail[] = [];
  const id = recordId(raw, name, problems);
  fail(problems);
  return id!;
}

function typeSpecs(raw: unknown, at: string, problems: ErrorDetail[]): TypeSpec[] {
  if (!Array.isArray(raw)) {
    problems.push({ message: `${at} must be an array of association types`, in: at, code: 'INVALID' });
    return [];
  }
  if (raw.length > 100) {
    problems.push({ message: `${at} holds at most 100 types`, in: at, code: 'INVALID' });
    return [];
  }
  const out: TypeSpec[] = [];
  raw.forEach((t, i) => {
    const here = `${at}[${i}]`;
    if (!isObject(t)) {
      problems.push({ message: `${here} must be an object`, in: here, code: 'INVALID' });
      return;
    }
    const category = t.associationCategory;
    const typeId = t.associationTypeId;
    let ok = true;
    if (typeof category !== 'string' || !CATEGORIES.has(category)) {
      problems.push({
        message: `${here}.associationCategory must be one of ${[...CATEGORIES].join(', ')}`,
        in: `${here}.associationCategory`,
        code: 'INVALID',
      });
      ok = false;
    }
    if (typeof typeId !== 'number' || !Number.isInteger(typeId) || typeId < 0 || typeId > 2_147_483_647) {
      problems.push({
        message: `${here}.associationTypeId must be an integer`,
        in: `${here}.associationTypeId`,
        code: 'INVALID',
      });
      ok = false;
    }
    if (ok) out.push({ category: category as string, typeId: typeId as number });
  });
  return out;
}

/** The body of PUT …/associations/{toObjectType}/{toObjectId}: an array of AssociationSpec, required. */
export function parseTypeSpecsBody(raw: unknown): TypeSpec[] {
  if (raw === undefined || raw === null || raw === '') throw requestBodyExpected();
  const problems: ErrorDetail[] = [];
  const specs = typeSpecs(raw, 'body', problems);
  if (problems.length === 0 && specs.length === 0) {
    problems.push({ message: 'at least one association type is required', in: 'body', code: 'REQUIRED' });
  }
  fail(problems);
  return specs;
}

function inputs(raw: unknown, max = MAX_BATCH_INPUTS): unknown[] {
  if (raw === undefined || raw === null || raw === '') throw requestBodyExpected();
  if (!isObject(raw) || !Array.isArray(raw.inputs)) {
    fail([{ message: 'inputs is required: an array', in: 'inputs', code: 'REQUIRED' }]);
  }
  const list = (raw as { inputs: unknown[] }).inputs;
  if (list.length > max) throw tooManyInputs(list.length, max);
  return list;
}

function idOf(v: unknown, at: string, problems: ErrorDetail[]): number | undefined {
  if (!isObject(v)) {
    problems.push({ message: `${at} must be an object with an id`, in: at, code: 'INVALID' });
    return undefined;
  }
  return recordId(v.id, `${at}.id`, problems);
}

/** BatchInputPublicAssociationMultiPost (batch create, batch labels archive). */
export function parseMultiPost(raw: unknown): PairInput[] {
  const problems: ErrorDetail[] = [];
  const out = inputs(raw).map((input, i) => {
    const at = `inputs[${i}]`;
    if (!isObject(input)) {
      problems.push({ message: `${at} must be an object`, in: at, code: 'INVALID' });
      return undefined;
    }
    const fromId = idOf(input.from, `${at}.from`, problems);
    const toId = idOf(input.to, `${at}.to`, problems);
    const types = typeSpecs(input.types, `${at}.types`, problems);
    return fromId === undefined || toId === undefined ? undefined : { fromId, toId, types };
  });
  fail(problems);
  return out as PairInput[];
}

/** BatchInputPublicDefaultAssociationMultiPost. */
export function parseDefaultPost(raw: unknown): Array<{ fromId: number; toId: number }> {
  const problems: ErrorDetail[] = [];
  const out = inputs(raw).map((input, i) => {
    const at = `inputs[${i}]`;
    if (!isObject(input)) {
      problems.push({ message: `${at} must be an object`, in: at, code: 'INVALID' });
      return undefined;
    }
    const fromId = idOf(input.from, `${at}.from`, problems);
    const toId = idOf(input.to, `${at}.to`, problems);
    return fromId === undefined || toId === undefined ? undefined : { fromId, toId };
  });
  fail(problems);
  return out as Array<{ fromId: number; toId: number }>;
}

/** BatchInputPublicAssociationMultiArchive. */
export function parseMultiArchive(raw: unknown): Array<{ fromId: number; toIds: number[] }> {
  const problems: ErrorDetail[] = [];
  const out = inputs(raw).map((input, i) => {
    const at = `inputs[${i}]`;
    if (!isObject(input)) {
      problems.push({ message: `${at} must be an object`, in: at, code: 'INVALID' });
      return undefined;
    }
    const fromId = idOf(input.from, `${at}.from`, problems);
    if (!Array.isArray(input.to) || input.to.length > MAX_BATCH_INPUTS) {
      problems.push({ message: `${at}.to must be an array of record ids`, in: `${at}.to`, code: 'INVALID' });
      return undefined;
    }
    const toIds = input.to.map((t, j) => idOf(t, `${at}.to[${j}]`, problems));
    return fromId === undefined ? undefined : { fromId, toIds: toIds as number[] };
  });
  fail(problems);
  return out as Array<{ fromId: number; toIds: number[] }>;
}

/** BatchInputPublicFetchAssociationsBatchRequest: at most 1,000 inputs. */
export function parseBatchRead(raw: unknown): Array<{ id: string; fromId: number | undefined; after: number }> {
  const problems: ErrorDetail[] = [];
  const out = inputs(raw).map((input, i) => {
    const at = `inputs[${i}]`;
    if (!isObject(input) || (typeof input.id !== 'string' && typeof input.id !== 'number')) {
      problems.push({ message: `${at}.id is required`, in: `${at}.id`, code: 'REQUIRED' });
      return undefined;
    }
    const id = String(input.id);
    const after =
      input.after === undefined || input.after === null ? 0 : parseAfter(input.after, `${at}.after`, problems);
    return { id, fromId: /^\d{1,15}$/.test(id) ? Number(id) : undefined, after };
  });
  fail(problems);
  return out as Array<{ id: string; fromId: number | undefined; after: number }>;
}

function parseAfter(v: unknown, at: string, problems: ErrorDetail[]): number {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !/^\d{1,15}$/.test(s)) {
    problems.push({ message: `${at} must be the paging cursor of a previous page`, in: at, code: 'INVALID' });
    return 0;
  }
  return Number(s);
}

/** `limit` (default 500, at most 500) and `after` of GET …/associations/{toObjectType}. */
export function parsePaging(query: Record<string, unknown>): { limit: number; after: number } {
  const problems: ErrorDetail[] = [];
  const first = (v: unknown) => (Array.isArray(v) ? (v[0] as unknown) : v);
  const rawLimit = first(query.limit);
  let limit = 500;
  if (rawLimit !== undefined && rawLimit !== '') {
    if (typeof rawLimit !== 'string' || !/^\d{1,6}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 500) {
      problems.push({ message: 'limit must be an integer from 1 to 500', in: 'limit', code: 'INVALID' });
    } else limit = Number(rawLimit);
  }
  const rawAfter = first(query.after);
  const after = rawAfter === undefined || rawAfter === '' ? 0 : parseAfter(rawAfter, 'after', problems);
  fail(problems);
  return { limit, after };
}
