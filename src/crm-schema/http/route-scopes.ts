import { type AccessTokenClaims, missingAnyScopeError } from '../../oauth';

/** HubSpot's "any of" check for routes whose scopes depend on a path parameter. */
export function requireAnyScope(token: AccessTokenClaims, anyOf: readonly string[]): void {
  if (!anyOf.some((s) => token.scopes.includes(s))) throw missingAnyScopeError(anyOf);
}
