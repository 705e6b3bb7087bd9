import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import type { PairInput, TypeSpec } from '../application/crm-associations.handler';
import { invalidAssociationInput } from '../domain/association-errors';
import type {
  AssociationSpecDto,
  BatchAssociationFetchDto,
  BatchAssociationMultiArchiveDto,
  BatchAssociationMultiPostDto,
  BatchDefaultAssociationPostDto,
} from './association.dto';

/**
 * Path and query values of the associations v4 API (every bad one reported at once), and the
 * commands' inputs read from the bodies' DTOs (`association.dto.ts`).
 */

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

const specsOf = (types: AssociationSpecDto[]): TypeSpec[] =>
  types.map((t) => ({ category: t.associationCategory, typeId: t.associationTypeId }));

/** The body of PUT …/associations/{toObjectType}/{toObjectId}. */
export const typeSpecsOf = specsOf;

/** BatchInputPublicAssociationMultiPost (batch create, batch labels archive). */
export const multiPostOf = (body: BatchAssociationMultiPostDto): PairInput[] =>
  body.inputs.map((i) => ({ fromId: Number(i.from.id), toId: Number(i.to.id), types: specsOf(i.types) }));

/** BatchInputPublicDefaultAssociationMultiPost. */
export const defaultPostOf = (body: BatchDefaultAssociationPostDto): Array<{ fromId: number; toId: number }> =>
  body.inputs.map((i) => ({ fromId: Number(i.from.id), toId: Number(i.to.id) }));

/** BatchInputPublicAssociationMultiArchive. */
export const multiArchiveOf = (body: BatchAssociationMultiArchiveDto): Array<{ fromId: number; toIds: number[] }> =>
  body.inputs.map((i) => ({ fromId: Number(i.from.id), toIds: i.to.map((t) => Number(t.id)) }));

/** BatchInputPublicFetchAssociationsBatchRequest: an id that is not numeric is reported as not found. */
export const batchReadOf = (
  body: BatchAssociationFetchDto,
): Array<{ id: string; fromId: number | undefined; after: number }> =>
  body.inputs.map((i) => ({
    id: i.id,
    fromId: /^\d{1,15}$/.test(i.id) ? Number(i.id) : undefined,
    after: i.after === undefined ? 0 : Number(i.after),
  }));

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
