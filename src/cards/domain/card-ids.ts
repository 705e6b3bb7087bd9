/**
 * Card ids are int64 on HubSpot's wire and strings of digits in its card API. We keep them as
 * canonical decimal strings end to end, so an id above 2^53 is never rounded by a double.
 */
export const INT64_MAX = 9223372036854775807n;
export const INT32_MAX = 2147483647;

/** A positive int64 as a canonical decimal string, or null. Accepts a JSON integer or a digit string. */
export function toCardId(value: unknown): string | null {
  let digits: string;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 1) return null;
    if (value > Number(INT64_MAX)) return null;
    digits = BigInt(value).toString();
  } else if (typeof value === 'string') {
    if (!/^[0-9]{1,19}$/.test(value)) return null;
    digits = value;
  } else {
    return null;
  }
  const n = BigInt(digits);
  if (n < 1n || n > INT64_MAX) return null;
  return n.toString();
}

/** A positive int32 from a path segment, or null. */
export function toInt32Id(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 && value <= INT32_MAX ? value : null;
  if (typeof value !== 'string' || !/^[0-9]{1,10}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= INT32_MAX ? n : null;
}

/** Numeric order of decimal ids without converting them to doubles. */
export function compareCardIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
