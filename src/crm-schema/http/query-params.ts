import { HubSpotError } from '../../platform/errors/hubspot-error';
import { parseBooleanParam } from '../../platform/http/boolean-param';
import { DATA_SENSITIVITIES, type DataSensitivity } from '../domain/property-rules';

/**
 * Query and path values Nest's built-in pipes would refuse with their own error shape: these
 * answer HubSpot's VALIDATION_ERROR (ids use the shared IntParamPipe).
 */
export function parseArchived(raw: string | undefined): boolean {
  return parseBooleanParam(raw, 'archived', false);
}

/** Object types and property names are short identifiers; anything longer cannot exist. */
export function parseSegment(raw: string, name: string): string {
  if (raw.length === 0 || raw.length > 200 || raw.includes('\u0000')) {
    throw HubSpotError.validation(`Invalid ${name}`, [{ message: `${name} is not valid`, in: name, code: 'INVALID' }]);
  }
  return raw;
}

/** HubSpot's boolean query flags (`includePropertyDefinitions`...): true unless `false` is given. */
export function parseIncludeFlag(raw: string | undefined, name: string): boolean {
  return parseBooleanParam(raw, name, true);
}

/** The `dataSensitivity` query parameter (default non_sensitive). */
export function parseDataSensitivity(raw: string | undefined): DataSensitivity {
  if (raw === undefined || raw === '') return 'non_sensitive';
  const found = DATA_SENSITIVITIES.find((s) => s === raw);
  if (found) return found;
  throw HubSpotError.validation(`Invalid dataSensitivity: ${String(raw).slice(0, 40)}`, [
    {
      message: `dataSensitivity must be one of ${DATA_SENSITIVITIES.join(', ')}`,
      in: 'dataSensitivity',
      code: 'INVALID',
    },
  ]);
}

/** The `properties` query parameter: comma-separated property names to return (all when absent). */
export function parsePropertyNames(raw: string | string[] | undefined): ReadonlySet<string> | undefined {
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim());
  if (names.length > 1000 || names.some((n) => n.length > 200 || n.includes('\u0000'))) {
    throw HubSpotError.validation('Invalid properties', [
      { message: 'properties is a comma-separated list of property names', in: 'properties', code: 'INVALID' },
    ]);
  }
  const set = new Set(names.filter((n) => n !== ''));
  return set.size > 0 ? set : undefined;
}

/**
 * The `locale` query parameter: a language tag (`en`, `de-DE`) is accepted; labels are stored in
 * one language only, so it does not change the answer.
 */
export function parseLocale(raw: string | undefined): void {
  if (raw === undefined || raw === '') return;
  if (!/^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8}){0,4}$/.test(raw)) {
    throw HubSpotError.validation(`Invalid locale: ${String(raw).slice(0, 40)}`, [
      { message: 'locale must be a language tag such as en or de-DE', in: 'locale', code: 'INVALID' },
    ]);
  }
}
