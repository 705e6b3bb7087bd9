import { consoleErrors } from './console-errors';

/**
 * The console's query and form values: each either absent or one short string (a repeated query
 * parameter arrives as an array and is refused, as is anything over 200 characters or a NUL).
 */
export function text(source: unknown, name: string): string | undefined {
  const raw = typeof source === 'object' && source !== null ? (source as Record<string, unknown>)[name] : undefined;
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || raw.length > 200 || raw.includes('\u0000')) {
    throw consoleErrors.badInput(`${name} must be one value of at most 200 characters.`);
  }
  return raw.trim() === '' ? undefined : raw.trim();
}

/** A whole number from `min` to `max`, or absent. */
export function whole(source: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = text(source, name);
  if (raw === undefined) return undefined;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw consoleErrors.badInput(`${name} must be a whole number from ${min} to ${max}.`);
  }
  return n;
}

/** A path segment that must be a whole number (an id). */
export function idParam(raw: string, name: string): number {
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw consoleErrors.notFound(`${name} ${raw.slice(0, 40)}`);
  return n;
}
