import { parseBooleanParam } from '../../platform/http/boolean-param';
import { invalidInput } from '../domain/record-errors';

/**
 * Query and path values of the records API (bodies are DTOs, records.dto.ts), read by hand so each
 * bad one answers HubSpot's VALIDATION_ERROR with `in` naming it: a query string holds strings, or
 * repeated parameters, whatever the route declares.
 */
export type Query = Record<string, string | string[] | undefined>;

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
