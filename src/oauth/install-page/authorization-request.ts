import { checkPkceRequest } from '../domain/pkce';

/**
 * The authorization request of the install page, as the client sent it. It travels between the
 * steps (sign-in, account choice, consent) as one opaque hidden field so every value — `state`
 * above all — comes back byte for byte, and it is re-validated on every POST: a hidden field is
 * user input like any other.
 */
export interface AuthorizationRequest {
  clientId?: string;
  redirectUri?: string;
  /** Space-separated, HubSpot's `scope` (or the description's `scopes`). */
  scope?: string;
  /** Space-separated, HubSpot's `optional_scope` (or `optional_scopes`). */
  optionalScope?: string;
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** Query parameter names, in the order authorize URLs are written. */
const PARAMS: ReadonlyArray<[keyof AuthorizationRequest, string]> = [
  ['clientId', 'client_id'],
  ['redirectUri', 'redirect_uri'],
  ['scope', 'scope'],
  ['optionalScope', 'optional_scope'],
  ['state', 'state'],
  ['codeChallenge', 'code_challenge'],
  ['codeChallengeMethod', 'code_challenge_method'],
];
const ALIASES: Partial<Record<keyof AuthorizationRequest, string>> = {
  scope: 'scopes',
  optionalScope: 'optional_scopes',
};

/** Longest accepted `state`: generous for any client, small enough for a URL and a hidden field. */
export const MAX_STATE_LENGTH = 2048;

export type ParseResult = { ok: true; request: AuthorizationRequest } | { ok: false; message: string };

/** Reads the page's query string (already decoded by Fastify). Repeated parameters are refused (RFC 6749 §3.1). */
export function authorizationRequestFromQuery(query: unknown): ParseResult {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const request: AuthorizationRequest = {};
  for (const [field, name] of PARAMS) {
    const alias = ALIASES[field];
    const raw = q[name] !== undefined ? q[name] : alias !== undefined ? q[alias] : undefined;
    const shownName = q[name] !== undefined || alias === undefined ? name : alias;
    if (raw === undefined) continue;
    if (typeof raw !== 'string') return { ok: false, message: `The parameter ${shownName} was given more than once.` };
    request[field] = raw;
  }
  return checkShape(request);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkShape(request: AuthorizationRequest): ParseResult {
  for (const [field, name] of PARAMS) {
    const v = request[field];
    if (v === undefined) continue;
    // NUL and lone surrogates cannot travel through a URL or a form unchanged.
    if (v.includes('\u0000') || LONE_SURROGATE.test(v))
      return { ok: false, message: `The parameter ${name} holds characters that cannot be used.` };
  }
  if (request.state !== undefined && request.state.length > MAX_STATE_LENGTH) {
    return { ok: false, message: `The state parameter is longer than ${MAX_STATE_LENGTH} characters.` };
  }
  return { ok: true, request };
}

/** PKCE (RFC 7636): the shared rule (only S256, named explicitly); the page shows the message. */
export function checkPkce(request: AuthorizationRequest): string | null {
  const result = checkPkceRequest(request.codeChallenge, request.codeChallengeMethod);
  return result.ok ? null : result.problem.message;
}

/** The opaque hidden-field form: base64url of JSON, so no character is altered by HTML or form encoding. */
export function encodeAuthorizationRequest(request: AuthorizationRequest): string {
  return Buffer.from(JSON.stringify(request), 'utf8').toString('base64url');
}

export function decodeAuthorizationRequest(encoded: unknown): ParseResult {
  if (
    typeof encoded !== 'string' ||
    encoded.length === 0 ||
    encoded.length > 16_384 ||
    !/^[A-Za-z0-9_-]+$/.test(encoded)
  ) {
    return { ok: false, message: 'The authorization request is missing from the form. Start the installation again.' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, message: 'The authorization request in the form is damaged. Start the installation again.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, message: 'The authorization request in the form is damaged. Start the installation again.' };
  }
  const request: AuthorizationRequest = {};
  for (const [field] of PARAMS) {
    const v = (parsed as Record<string, unknown>)[field];
    if (v === undefined) continue;
    if (typeof v !== 'string') {
      return { ok: false, message: 'The authorization request in the form is damaged. Start the installation again.' };
    }
    request[field] = v;
  }
  return checkShape(request);
}

/** `/oauth/authorize?…` or `/oauth/{portalId}/authorize?…`, always with HubSpot's parameter names. */
export function authorizePath(request: AuthorizationRequest, portalId?: number): string {
  const base = portalId === undefined ? '/oauth/authorize' : `/oauth/${portalId}/authorize`;
  const query = PARAMS.filter(([field]) => request[field] !== undefined)
    .map(([field, name]) => `${name}=${encodeURIComponent(request[field]!)}`)
    .join('&');
  return query ? `${base}?${query}` : base;
}
