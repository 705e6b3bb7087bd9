import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import { compilePathGlob, MAX_GLOB_LENGTH } from './path-glob';

export const RATE_LIMIT_POLICIES = ['TEN_SECONDLY_ROLLING', 'SECONDLY', 'DAILY'] as const;
export const ERROR_STATUSES = [500, 502, 503, 504] as const;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** What an injected answer is: one of HubSpot's 429s, a 5xx, a delay before the real answer, or no answer. */
export type FaultResponse =
  | { kind: 'rate-limit'; policy: (typeof RATE_LIMIT_POLICIES)[number] }
  | { kind: 'error'; status: (typeof ERROR_STATUSES)[number] }
  | { kind: 'latency'; ms: number }
  | { kind: 'reset' };

/** Which of the app's requests a fault applies to; an absent field matches every request. */
export interface FaultMatch {
  method?: (typeof METHODS)[number];
  /** A glob over the request's path, e.g. `/crm/v3/properties/*` (segments, `*`, `**`, `?`, sets, `{a,b}`: path-glob.ts). */
  path?: string;
  hubId?: number;
}

/** A fault as set through the admin API (checked: see parseFaultSpec). */
export interface FaultSpec {
  match: FaultMatch;
  response: FaultResponse;
  /** Inject at most this many answers. */
  times?: number;
  /** Inject into this share of the matching requests (0 < ratio ≤ 1), drawn per request. */
  ratio?: number;
  /** The fault stops applying this many seconds after it was set. */
  seconds?: number;
}

export const MAX_LATENCY_MS = 60_000;
export const MAX_FAULT_SECONDS = 30 * 24 * 3600;
const MAX_TIMES = 1_000_000;

/**
 * A path glob's matcher. A glob stored by an earlier version that this one refuses (picomatch's
 * extglobs, POSIX classes, ranges) matches no request: the fault stays listed, so it can be cleared.
 */
export function pathMatcher(glob: string): (path: string) => boolean {
  const compiled = compilePathGlob(glob);
  return compiled.ok ? compiled.matches : () => false;
}

type Fields = Record<string, unknown>;
const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/**
 * Checks a fault request body and reports every problem at once (HubSpot's VALIDATION_ERROR, one
 * `errors[]` entry per bad field): unknown fields, an unknown response kind, a bad glob, times and
 * ratio together, seconds that are not positive.
 */
export function parseFaultSpec(body: unknown): { ok: true; spec: FaultSpec } | { ok: false; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const bad = (where: string, message: string, code = 'INVALID') => errors.push({ message, in: where, code });
  if (!isObject(body)) {
    bad('body', 'expected a JSON object', 'INVALID_BODY');
    return { ok: false, errors };
  }
  unknownFields(body, ['match', 'response', 'times', 'ratio', 'seconds'], '', bad);

  const match: FaultMatch = {};
  if (body.match !== undefined) {
    if (!isObject(body.match)) bad('match', 'match must be an object');
    else {
      const m = body.match;
      unknownFields(m, ['method', 'path', 'hubId'], 'match.', bad);
      if (m.method !== undefined) {
        const method = typeof m.method === 'string' ? m.method.toUpperCase() : '';
        if ((METHODS as readonly string[]).includes(method)) match.method = method as FaultMatch['method'];
        else bad('match.method', `method must be one of ${METHODS.join(', ')}`);
      }
      if (m.path !== undefined) {
        const problem = globProblem(m.path);
        if (problem) bad('match.path', problem);
        else match.path = m.path as string;
      }
      if (m.hubId !== undefined) {
        if (isInt(m.hubId, 1, Number.MAX_SAFE_INTEGER)) match.hubId = m.hubId;
        else bad('match.hubId', 'hubId must be a positive integer');
      }
    }
  }

  const response = parseResponse(body.response, bad);

  if (body.times !== undefined && body.ratio !== undefined) bad('times', 'give times or ratio, not both');
  if (body.times !== undefined && !isInt(body.times, 1, MAX_TIMES)) {
    bad('times', `times must be an integer from 1 to ${MAX_TIMES}`);
  }
  if (body.ratio !== undefined && !(typeof body.ratio === 'number' && body.ratio > 0 && body.ratio <= 1)) {
    bad('ratio', 'ratio must be a number greater than 0 and at most 1');
  }
  if (body.seconds !== undefined && !isInt(body.seconds, 1, MAX_FAULT_SECONDS)) {
    bad('seconds', `seconds must be an integer from 1 to ${MAX_FAULT_SECONDS}`);
  }
  if (errors.length > 0 || response === null) return { ok: false, errors };
  return {
    ok: true,
    spec: {
      match,
      response,
      ...(body.times !== undefined ? { times: body.times as number } : {}),
      ...(body.ratio !== undefined ? { ratio: body.ratio as number } : {}),
      ...(body.seconds !== undefined ? { seconds: body.seconds as number } : {}),
    },
  };
}

function parseResponse(
  value: unknown,
  bad: (where: string, message: string, code?: string) => void,
): FaultResponse | null {
  if (value === undefined) {
    bad('response', 'response is required', 'REQUIRED');
    return null;
  }
  if (!isObject(value)) {
    bad('response', 'response must be an object');
    return null;
  }
  const only = (fields: string[]) => unknownFields(value, ['kind', ...fields], 'response.', bad);
  switch (value.kind) {
    case 'rate-limit':
      only(['policy']);
      if ((RATE_LIMIT_POLICIES as readonly unknown[]).includes(value.policy)) {
        return { kind: 'rate-limit', policy: value.policy as (typeof RATE_LIMIT_POLICIES)[number] };
      }
      bad('response.policy', `policy must be one of ${RATE_LIMIT_POLICIES.join(', ')}`);
      return null;
    case 'error':
      only(['status']);
      if ((ERROR_STATUSES as readonly unknown[]).includes(value.status)) {
        return { kind: 'error', status: value.status as (typeof ERROR_STATUSES)[number] };
      }
      bad('response.status', `status must be one of ${ERROR_STATUSES.join(', ')}`);
      return null;
    case 'latency':
      only(['ms']);
      if (isInt(value.ms, 1, MAX_LATENCY_MS)) return { kind: 'latency', ms: value.ms };
      bad('response.ms', `ms must be an integer from 1 to ${MAX_LATENCY_MS}`);
      return null;
    case 'reset':
      only([]);
      return { kind: 'reset' };
    default:
      bad('response.kind', 'kind must be one of rate-limit, error, latency, reset');
      return null;
  }
}

function globProblem(glob: unknown): string | null {
  if (typeof glob !== 'string' || glob.length === 0) return 'path must be a non-empty string';
  if (glob.length > MAX_GLOB_LENGTH) return `path must be at most ${MAX_GLOB_LENGTH} characters`;
  if (!glob.startsWith('/') && !glob.startsWith('**'))
    return 'path must start with / (it is matched against the request path)';
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f#]/.test(glob)) return 'path must not contain control characters or #';
  const compiled = compilePathGlob(glob);
  return compiled.ok ? null : `path is not a valid glob: ${compiled.problem}`;
}

function unknownFields(
  value: Fields,
  known: string[],
  prefix: string,
  bad: (where: string, message: string, code?: string) => void,
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) bad(`${prefix}${key}`, `unknown field ${prefix}${key}`, 'UNKNOWN_FIELD');
  }
}
