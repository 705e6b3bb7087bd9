import type { FastifyRequest } from 'fastify';
import { parseBasicAuthorization, type PresentedClientCredentials } from '../application/client-authentication';
import { oauthError } from '../domain/oauth-errors';

/** How one version of the OAuth endpoints reads its form (the token endpoint's table names one per route). */
export interface FormRules {
  /** Parameters HubSpot's v1 spec also takes from the query string (the form wins only when the query lacks it). */
  alsoInQuery: ReadonlySet<string>;
  /** Read, and so checked for repeats, before anything else, in this order (v1 reads its whole form up front). */
  readFirst: readonly string[];
  /** Whether the Authorization header is trimmed before it is parsed (v1 parses it as sent). */
  trimAuthorization: boolean;
  /** 2026-03 names private_key_jwt to refuse it. */
  refuseClientAssertion: boolean;
}

/**
 * The one form reader of the OAuth endpoints (token, introspect, revoke, every version): every
 * parameter at most once (RFC 6749 §3.2), client credentials by HTTP Basic or in the body (RFC 6749
 * §2.3.1: a server must support Basic; one method per request, which ClientAuthenticator enforces),
 * unrecognized parameters ignored (RFC 6749 §3.2).
 */
export class OAuthForm {
  private readonly body: Record<string, unknown>;
  private readonly query: Record<string, unknown>;
  private readonly basic: { clientId: string; clientSecret: string } | undefined;

  constructor(
    request: Pick<FastifyRequest, 'body' | 'query' | 'headers'>,
    private readonly rules: FormRules,
  ) {
    this.body = isPlainObject(request.body) ? request.body : {};
    this.query = rules.alsoInQuery.size > 0 && isPlainObject(request.query) ? request.query : {};
    const authorization = request.headers.authorization;
    const header = typeof authorization === 'string' ? authorization : undefined;
    const basic = parseBasicAuthorization(rules.trimAuthorization ? header?.trim() : header);
    if (basic === 'malformed') {
      throw oauthError('BAD_CLIENT_ID', 'invalid_client', 'malformed HTTP Basic client credentials', {
        wwwAuthenticate: true,
      });
    }
    this.basic = basic;
    for (const name of rules.readFirst) this.get(name);
    if (
      rules.refuseClientAssertion &&
      (this.get('client_assertion') !== undefined || this.get('client_assertion_type') !== undefined)
    ) {
      throw oauthError(
        'BAD_REQUEST',
        'invalid_request',
        'client_assertion (private_key_jwt) is not supported by this service: authenticate with client_id and client_secret',
      );
    }
  }

  /** One parameter, undefined when absent or empty; a repeated one (or one in both body and query) is refused. */
  get(name: string): string | undefined {
    const inBody = single(this.body, name);
    if (!this.rules.alsoInQuery.has(name)) return inBody;
    const inQuery = single(this.query, name);
    if (inBody !== undefined && inQuery !== undefined) {
      throw oauthError('BAD_REQUEST', 'invalid_request', `${name} was given more than once`);
    }
    return inBody ?? inQuery;
  }

  /** A required parameter: its absence is RFC 6749's invalid_request, with HubSpot's status and the version's words. */
  require(name: string, status: Parameters<typeof oauthError>[0] = 'BAD_REQUEST', message = `missing ${name}`): string {
    const v = this.get(name);
    if (v === undefined) throw oauthError(status, 'invalid_request', message);
    return v;
  }

  credentials(): PresentedClientCredentials {
    return {
      ...(this.basic ? { basic: this.basic } : {}),
      bodyClientId: this.get('client_id'),
      bodyClientSecret: this.get('client_secret'),
    };
  }
}

function single(source: Record<string, unknown>, name: string): string | undefined {
  const v = source[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw oauthError('BAD_REQUEST', 'invalid_request', `${name} was given more than once`);
  return v;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
