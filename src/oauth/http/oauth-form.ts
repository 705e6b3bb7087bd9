import type { FastifyRequest } from 'fastify';
import { parseBasicAuthorization, type PresentedClientCredentials } from '../application/client-authentication';
import { oauthError } from '../domain/oauth-errors';

/**
 * The form of one OAuth 2026-03 request (token, introspect, revoke): every parameter at most once
 * (RFC 6749 §3.2), client credentials by HTTP Basic or in the body (RFC 6749 §2.3.1: a server must
 * support Basic; one method per request, which ClientAuthenticator enforces), and unrecognized
 * parameters ignored (RFC 6749 §3.2). The query string is not read.
 */
export class OAuthForm {
  private readonly body: Record<string, unknown>;
  private readonly basic: { clientId: string; clientSecret: string } | undefined;

  constructor(request: FastifyRequest) {
    this.body = isPlainObject(request.body) ? request.body : {};
    const authorization = request.headers.authorization;
    const basic = parseBasicAuthorization(typeof authorization === 'string' ? authorization.trim() : undefined);
    if (basic === 'malformed') {
      throw oauthError('BAD_CLIENT_ID', 'invalid_client', 'malformed HTTP Basic client credentials', {
        wwwAuthenticate: true,
      });
    }
    this.basic = basic;
    if (this.get('client_assertion') !== undefined || this.get('client_assertion_type') !== undefined) {
      throw oauthError(
        'BAD_REQUEST',
        'invalid_request',
        'client_assertion (private_key_jwt) is not supported by this service: authenticate with client_id and client_secret',
      );
    }
  }

  /** One parameter, undefined when absent or empty; a repeated one is refused. */
  get(name: string): string | undefined {
    const v = this.body[name];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') throw oauthError('BAD_REQUEST', 'invalid_request', `${name} was given more than once`);
    return v;
  }

  /** A required parameter: its absence is RFC 6749's invalid_request. */
  require(name: string, status: Parameters<typeof oauthError>[0] = 'BAD_REQUEST'): string {
    const v = this.get(name);
    if (v === undefined) throw oauthError(status, 'invalid_request', `missing ${name}`);
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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
