import { type AccessTokenClaims, missingAnyScopeError } from '../../oauth';
import { HubSpotError } from '../../platform/errors/hubspot-error';

/**
 * Query and path values Nest's built-in pipes would refuse with their own error shape: these
 * answer HubSpot's VALIDATION_ERROR (ids use the shared IntParamPipe).
 */
export function parseArchived(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw HubSpotError.validation(`Invalid archived: ${String(raw).slice(0, 40)}`, [
    { message: 'archived must be true or false', in: 'archived', code: 'INVALID' },
  ]);
}

/** Object types and property names are short identifiers; anything longer cannot exist. */
export function parseSegment(raw: string, name: string): string {
  if (raw.length === 0 || raw.length > 200 || raw.includes('\u0000')) {
    throw HubSpotError.validation(`Invalid ${name}`, [{ message: `${name} is not valid`, in: name, code: 'INVALID' }]);
  }
  return raw;
}

/** HubSpot's "any of" check for routes whose scopes depend on a path parameter. */
export function requireAnyScope(token: AccessTokenClaims, anyOf: readonly string[]): void {
  if (!anyOf.some((s) => token.scopes.includes(s))) throw missingAnyScopeError(anyOf);
}

/** HubSpot's boolean query flags (`includePropertyDefinitions`...): true unless `false` is given. */
export function parseIncludeFlag(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === '' || raw === 'true') return true;
  if (raw === 'false') return false;
  throw HubSpotError.validation(`Invalid ${name}: ${String(raw).slice(0, 40)}`, [
    { message: `${name} must be true or false`, in: name, code: 'INVALID' },
  ]);
}
