import type { FastifyRequest } from 'fastify';
import { oauthError } from '../domain/oauth-errors';
import { parseBasicAuthorization, PresentedClientCredentials } from '../application/client-authentication';

export const TOKEN_PATH = '/oauth/v1/token';
const FORM = 'application/x-www-form-urlencoded';

/** The OAuth 2026-03 endpoints (also at v3 and 2026-09): forms only, as the v1 token endpoint. */
const CURRENT_OAUTH_PREFIXES = ['/oauth/v3', '/oauth/2026-03', '/oauth/2026-09'];
export const CURRENT_TOKEN_PATHS: ReadonlySet<string> = new Set(
  CURRENT_OAUTH_PREFIXES.flatMap((p) => [`${p}/token`, `${p}/token/introspect`, `${p}/token/revoke`]),
);
/** Every path that authenticates a client (and answers a failed authentication with 401). */
export const CLIENT_AUTHENTICATED_PATHS: ReadonlySet<string> = new Set([TOKEN_PATH, ...CURRENT_TOKEN_PATHS]);

/** The parameters of one token request, each given at most once (RFC 6749 §3.2). */
export interface TokenRequest {
  grantType?: string;
  code?: string;
  redirectUri?: string;
  codeVerifier?: string;
  refreshToken?: string;
  credentials: PresentedClientCredentials;
}

export const unsupportedContentType = () =>
  oauthError(
    'BAD_GRANT_TYPE',
    'unsupported_grant_type',
    'grant_type must be authorization_code or refresh_token, sent as application/x-www-form-urlencoded',
  );

export const nonFormRequest = () =>
  oauthError(
    'BAD_REQUEST',
    'invalid_request',
    'send the parameters as application/x-www-form-urlencoded (this endpoint reads forms only)',
  );

/**
 * The path of a POST to a form-only OAuth endpoint that carries a body that is not a form (JSON,
 * multipart, text...), or undefined when the request is fine or goes elsewhere. The routed path
 * decides (`/oauth/v1/%74oken` and `http://host/oauth/v1/token` reach the token route too); the
 * raw path only when nothing routed.
 */
export function nonFormOAuthRequestPath(
  request: Pick<FastifyRequest, 'method' | 'url' | 'headers'> & { routeOptions?: { url?: string } },
): string | undefined {
  if (request.method !== 'POST') return undefined;
  let path = request.routeOptions?.url;
  if (path === undefined) {
    const q = request.url.indexOf('?');
    path = q < 0 ? request.url : request.url.slice(0, q);
  }
  if (path !== TOKEN_PATH && !CURRENT_TOKEN_PATHS.has(path)) return undefined;
  const type = request.headers['content-type'];
  if (type === undefined) return undefined;
  return type.split(';')[0]!.trim().toLowerCase() !== FORM ? path : undefined;
}

/** True when a POST to the v1 token endpoint carries a body that is not a form (JSON, multipart, text...). */
export function isNonFormTokenRequest(
  request: Pick<FastifyRequest, 'method' | 'url' | 'headers'> & { routeOptions?: { url?: string } },
): boolean {
  return nonFormOAuthRequestPath(request) === TOKEN_PATH;
}

/** Reads the form body (and, as HubSpot's spec allows, `client_secret` / `refresh_token` from the query). */
export function readTokenRequest(request: FastifyRequest): TokenRequest {
  const body = isPlainObject(request.body) ? request.body : {};
  const query = isPlainObject(request.query) ? request.query : {};
  const single = (source: Record<string, unknown>, name: string): string | undefined => {
    const v = source[name];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') throw oauthError('BAD_REQUEST', 'invalid_request', `${name} was given more than once`);
    return v;
  };
  const eitherPlace = (name: string): string | undefined => {
    const inBody = single(body, name);
    const inQuery = single(query, name);
    if (inBody !== undefined && inQuery !== undefined) {
      throw oauthError('BAD_REQUEST', 'invalid_request', `${name} was given more than once`);
    }
    return inBody ?? inQuery;
  };
  const authorization = request.headers.authorization;
  const basic = parseBasicAuthorization(typeof authorization === 'string' ? authorization : undefined);
  if (basic === 'malformed') {
    throw oauthError('BAD_CLIENT_ID', 'invalid_client', 'malformed HTTP Basic client credentials', {
      wwwAuthenticate: true,
    });
  }
  return {
    grantType: single(body, 'grant_type'),
    code: single(body, 'code'),
    redirectUri: single(body, 'redirect_uri'),
    codeVerifier: single(body, 'code_verifier'),
    refreshToken: eitherPlace('refresh_token'),
    credentials: {
      ...(basic ? { basic } : {}),
      bodyClientId: single(body, 'client_id'),
      bodyClientSecret: eitherPlace('client_secret'),
    },
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
