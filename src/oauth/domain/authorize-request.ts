import type { Tier } from '../../platform/tiers';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { isKnownScope, SCOPES, tierAllowsScope } from '../../platform/scopes/scope-catalog';

/** What the authorize checks need to know about an app. */
export interface AppScopeSettings {
  name: string;
  redirectUrls: string[];
  requiredScopes: string[];
  optionalScopes: string[];
}

/** `scope=a b c` (HubSpot and the description both use spaces; `+` already decoded to a space). */
export function parseScopeList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return [...new Set(raw.split(/[\s,]+/).filter((s) => s.length > 0))];
}

/** Catalog order: stable, and the order every token and response lists scopes in. */
export function inCatalogOrder(scopes: Iterable<string>): string[] {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
}

/**
 * Exact string comparison against the registered list: no normalization of any kind, so a
 * trailing slash, a different case, port, userinfo (`@`) or percent-encoding is a different URI.
 */
export function isRegisteredRedirectUri(app: Pick<AppScopeSettings, 'redirectUrls'>, redirectUri: string): boolean {
  return app.redirectUrls.some((registered) => registered === redirectUri);
}

export class AuthorizeRequestError extends HubSpotError {}

const refuse = (message: string, field: string, code: string) =>
  new AuthorizeRequestError(400, 'VALIDATION_ERROR', message, {
    errors: [{ message, in: field, code }],
    subCategory: `oauth.${code}`,
  });

export const authorizeErrors = {
  missingClientId: () => refuse('The client_id parameter is missing.', 'client_id', 'MISSING_CLIENT_ID'),
  unknownClient: () =>
    refuse('No app has this client_id. Check the client_id in your install URL.', 'client_id', 'UNKNOWN_CLIENT_ID'),
  missingRedirectUri: () => refuse('The redirect_uri parameter is missing.', 'redirect_uri', 'MISSING_REDIRECT_URI'),
  unregisteredRedirectUri: () =>
    refuse(
      "The redirect_uri does not match any redirect URL registered in the app's settings. It must match one of them exactly.",
      'redirect_uri',
      'REDIRECT_URI_MISMATCH',
    ),
};

/** The scope every install grants, named in the install URL or not. */
const IMPLIED_SCOPE = 'oauth';

/**
 * Checks the scopes of an authorize request against the catalog and the app's settings.
 * Returns the scopes to ask the user for: `required` (the `scope` list) and `optional`.
 */
export function checkRequestedScopes(
  app: AppScopeSettings,
  scope: string | undefined,
  optionalScope: string | undefined,
): { requiredScopes: string[]; optionalScopes: string[] } {
  const listed = parseScopeList(scope);
  // Every app has `oauth` as a required scope and HubSpot grants it without the URL naming it:
  // its own OAuth quickstart asks only for `crm.objects.contacts.read`.
  const requested =
    app.requiredScopes.includes(IMPLIED_SCOPE) && !listed.includes(IMPLIED_SCOPE) ? [IMPLIED_SCOPE, ...listed] : listed;
  const optional = parseScopeList(optionalScope);
  const unknown = [...requested, ...optional].filter((s) => !isKnownScope(s));
  if (unknown.length > 0) {
    throw refuse(`Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, 'scope', 'UNKNOWN_SCOPE');
  }
  const configured = new Set([...app.requiredScopes, ...app.optionalScopes]);
  const notConfigured = [...requested, ...optional].filter((s) => !configured.has(s));
  if (notConfigured.length > 0) {
    throw refuse(
      `The app ${app.name} is not configured for scope${notConfigured.length > 1 ? 's' : ''}: ${notConfigured.join(', ')}.`,
      'scope',
      'SCOPE_NOT_CONFIGURED',
    );
  }
  const missing = app.requiredScopes.filter((s) => !requested.includes(s));
  if (missing.length > 0) {
    throw refuse(
      `The install URL is missing required scope${missing.length > 1 ? 's' : ''} of the app: ${missing.join(', ')}.`,
      'scope',
      'MISSING_REQUIRED_SCOPE',
    );
  }
  const requiredScopes = inCatalogOrder(requested);
  return { requiredScopes, optionalScopes: inCatalogOrder(optional.filter((s) => !requiredScopes.includes(s))) };
}

/**
 * The scopes an install grants in an account: every required scope (refused when the tier cannot
 * use one), plus the optional scopes the tier can use; the others are dropped, as HubSpot does.
 */
export function grantScopesForTier(tier: Tier, requiredScopes: string[], optionalScopes: string[]): string[] {
  const unavailable = requiredScopes.filter((s) => !tierAllowsScope(tier, s));
  if (unavailable.length > 0) {
    throw HubSpotError.validation(
      `This account's subscription (${tier}) cannot use required scope${unavailable.length > 1 ? 's' : ''} ${unavailable.join(', ')}.`,
      [{ message: `not available on the ${tier} tier`, in: 'scope', code: 'SCOPE_NOT_AVAILABLE_FOR_TIER' }],
    );
  }
  return inCatalogOrder([...requiredScopes, ...optionalScopes.filter((s) => tierAllowsScope(tier, s))]);
}
