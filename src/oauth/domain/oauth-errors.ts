import { HubSpotError } from '../../platform/errors/hubspot-error';

/** RFC 6749 §5.2 error codes the token endpoint uses. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/** HubSpot's `status` values on the token endpoint. */
export type OAuthStatus =
  | 'BAD_AUTH_CODE'
  | 'EXPIRED_AUTH_CODE'
  | 'MISMATCH_REDIRECT_URI_AUTH_CODE'
  | 'BAD_REDIRECT_URI'
  | 'BAD_CLIENT_ID'
  | 'BAD_CLIENT_SECRET'
  | 'BAD_GRANT_TYPE'
  | 'BAD_REFRESH_TOKEN'
  | 'BAD_CODE_VERIFIER'
  | 'BAD_REQUEST';

/** Token responses and their errors must never be cached (RFC 6749 §5.1). */
export const NO_STORE_HEADERS = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * The token endpoint's refusals (v1, v3, 2026-03, 2026-09, introspect, revoke): each HubSpot
 * `status` with the RFC 6749 codes it is sent with; the HTTP status follows from the code (401 for
 * `invalid_client`, else 400). `oauthError` accepts only these pairs, and docs/oauth-errors.md's
 * tables are checked against this list (test/unit/oauth-errors-catalogue.unit.spec.ts).
 */
export const TOKEN_ENDPOINT_ERRORS = {
  BAD_GRANT_TYPE: ['invalid_request', 'unsupported_grant_type'],
  BAD_REQUEST: ['invalid_request', 'invalid_scope'],
  BAD_CLIENT_ID: ['invalid_request', 'invalid_client'],
  BAD_CLIENT_SECRET: ['invalid_client'],
  BAD_AUTH_CODE: ['invalid_request', 'invalid_grant'],
  EXPIRED_AUTH_CODE: ['invalid_grant'],
  BAD_REDIRECT_URI: ['invalid_request'],
  MISMATCH_REDIRECT_URI_AUTH_CODE: ['invalid_grant'],
  BAD_CODE_VERIFIER: ['invalid_grant'],
  BAD_REFRESH_TOKEN: ['invalid_request', 'invalid_grant'],
} as const satisfies Record<OAuthStatus, readonly OAuthErrorCode[]>;

/** The RFC 6749 codes the catalogue pairs with `status`. */
export type OAuthErrorCodeOf<S extends OAuthStatus> = (typeof TOKEN_ENDPOINT_ERRORS)[S][number];

/** A status that may be sent with `invalid_request` (a missing parameter names its own). */
export type MissingParameterStatus = {
  [S in OAuthStatus]: 'invalid_request' extends OAuthErrorCodeOf<S> ? S : never;
}[OAuthStatus];

/** The HTTP status of a token-endpoint error: 401 for `invalid_client` (RFC 6749 §5.2), else 400. */
export const httpStatusOf = (error: OAuthErrorCode): 400 | 401 => (error === 'invalid_client' ? 401 : 400);

/**
 * A token-endpoint error: HubSpot's Error body plus `status`, and RFC 6749's `error` /
 * `error_description`, for a pair of TOKEN_ENDPOINT_ERRORS.
 */
export function oauthError<S extends OAuthStatus>(
  status: S,
  error: OAuthErrorCodeOf<S>,
  message: string,
  options: { wwwAuthenticate?: boolean } = {},
): HubSpotError {
  const httpStatus = httpStatusOf(error);
  const headers: Record<string, string> = { ...NO_STORE_HEADERS };
  // RFC 6749 §5.2: a 401 answer to HTTP Basic carries the scheme the client must use.
  if (options.wwwAuthenticate) headers['www-authenticate'] = 'Basic realm="oauth", charset="UTF-8"';
  return new HubSpotError(httpStatus, httpStatus === 401 ? 'INVALID_AUTHENTICATION' : 'VALIDATION_ERROR', message, {
    status,
    fields: { error, error_description: message },
    headers,
  });
}

/** `GET /oauth/v1/access-tokens/{token}` of something that is not an access token of this service. */
export const malformedAccessTokenError = () =>
  new HubSpotError(400, 'VALIDATION_ERROR', 'The access token is malformed.', {
    status: 'BAD_ACCESS_TOKEN',
    errors: [{ message: 'not an access token issued by this service', in: 'token', code: 'INVALID' }],
  });

/** An access token whose signature does not verify (tampered, or signed with a key rotated out). */
export const accessTokenSignatureError = () =>
  new HubSpotError(401, 'INVALID_AUTHENTICATION', 'The access token is not valid: its signature does not verify.', {
    status: 'BAD_ACCESS_TOKEN',
  });

/** Metadata of a revoked token, one of an uninstalled install, or an app token: described only by introspection. */
export const notAnInstallTokenError = () =>
  new HubSpotError(
    401,
    'INVALID_AUTHENTICATION',
    'The access token is not valid: it was revoked or is not an install token.',
    { status: 'BAD_ACCESS_TOKEN' },
  );

/** `GET` / `DELETE /oauth/v1/refresh-tokens/{token}` of a token never issued (or, for GET, deleted). */
export const refreshTokenNotFound = () =>
  new HubSpotError(404, 'OBJECT_NOT_FOUND', 'refresh token not found', { status: 'BAD_REFRESH_TOKEN' });
