import { HubSpotError } from '../errors/hubspot-error';

/**
 * A boolean query parameter (`archived`, `includePropertyDefinitions`, ...), spelled as HubSpot
 * accepts it: `true` or `false` in any case. HubSpot's Python client sends Python's own spelling
 * (`archived=True`), its Node client `true`; both reach the same answer. Absent or empty gives
 * `whenAbsent`; anything else is refused with HubSpot's VALIDATION_ERROR naming the parameter.
 */
export function parseBooleanParam(raw: unknown, name: string, whenAbsent: boolean): boolean {
  if (raw === undefined || raw === '') return whenAbsent;
  // A repeated parameter arrives as an array: refused like any other garbage.
  const lower = typeof raw === 'string' && raw.length <= 5 ? raw.toLowerCase() : '';
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw HubSpotError.validation(`Invalid ${name}: ${String(raw).slice(0, 40)}`, [
    { message: `${name} must be true or false`, in: name, code: 'INVALID' },
  ]);
}
