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
 * A token-endpoint error: HubSpot's Error body plus `status`, and RFC 6749's `error` /
 * `error_description`. 400 for everything except `invalid_client` (401, RFC 6749 §5.2).
 */
export function oauthError(
  status: OAuthStatus,
  error: OAuthErrorCode,
  message: string,
  options: { wwwAuthenticate?: boolean } = {},
): HubSpotError {
  const httpStatus = error === 'invalid_client' ? 401 : 400;
  const headers: Record<string, string> = { ...NO_STORE_HEADERS };
  // RFC 6749 §5.2: a 401 answer to HTTP Basic carries the scheme the client must use.
  if (options.wwwAuthenticate) headers['www-authenticate'] = 'Basic realm="oauth", charset="UTF-8"';
  return new HubSpotError(httpStatus, httpStatus === 401 ? 'INVALID_AUTHENTICATION' : 'VALIDATION_ERROR', message, {
    status,
    fields: { error, error_description: message },
    headers,
  });
}
