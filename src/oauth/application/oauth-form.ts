import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DirectoryQueries } from '../../directory/directory.queries';
import { constantTimeEqual, sha256Hex } from '../../platform/security/crypto';
import { type MissingParameterStatus, oauthError } from '../domain/oauth-errors';

/*
 * The request of an OAuth endpoint (token, introspect, revoke, every version): the one form reader,
 * and the client authentication it carries (HTTP Basic or the body, checked in constant time).
 */

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
  require(name: string, status: MissingParameterStatus = 'BAD_REQUEST', message = `missing ${name}`): string {
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

/** The client credentials a token request carried, before they are checked. */
export interface PresentedClientCredentials {
  /** From `Authorization: Basic …`, when present. */
  basic?: { clientId: string; clientSecret: string };
  /** From the form body (or, as HubSpot's spec allows for the secret, the query string). */
  bodyClientId?: string;
  bodyClientSecret?: string;
}

export interface AuthenticatedClient {
  appId: number;
  clientId: string;
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined with ':' and base64-encoded. */
export function parseBasicAuthorization(
  header: string | undefined,
): { clientId: string; clientSecret: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (!match) return /^Basic\b/i.test(header) ? 'malformed' : undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

/** Client authentication of the token endpoint: HTTP Basic or the body, never both. */
@Injectable()
export class ClientAuthenticator {
  // Same work for unknown clients as for known ones, so timing does not tell them apart.
  private static readonly DUMMY_HASH = sha256Hex('no-such-client');

  constructor(private readonly directory: DirectoryQueries) {}

  authenticate(presented: PresentedClientCredentials): AuthenticatedClient {
    const { basic } = presented;
    if (basic && presented.bodyClientSecret !== undefined) {
      throw oauthError(
        'BAD_REQUEST',
        'invalid_request',
        'The client authenticated with both HTTP Basic and client_secret; use exactly one method.',
      );
    }
    if (basic && presented.bodyClientId !== undefined && presented.bodyClientId !== basic.clientId) {
      throw oauthError(
        'BAD_CLIENT_ID',
        'invalid_request',
        'client_id in the body differs from the HTTP Basic client id.',
      );
    }
    const clientId = basic?.clientId ?? presented.bodyClientId;
    const secret = basic?.clientSecret ?? presented.bodyClientSecret;
    const viaBasic = basic !== undefined;
    if (!clientId)
      throw oauthError('BAD_CLIENT_ID', 'invalid_client', 'missing or invalid client_id', {
        wwwAuthenticate: viaBasic,
      });
    const app = this.directory.findAppByClientId(clientId);
    const matches = constantTimeEqual(sha256Hex(secret ?? ''), app?.clientSecretHash ?? ClientAuthenticator.DUMMY_HASH);
    if (!app)
      throw oauthError('BAD_CLIENT_ID', 'invalid_client', 'missing or invalid client_id', {
        wwwAuthenticate: viaBasic,
      });
    if (!secret || !matches) {
      throw oauthError('BAD_CLIENT_SECRET', 'invalid_client', 'missing or invalid client_secret', {
        wwwAuthenticate: viaBasic,
      });
    }
    return { appId: app.appId, clientId: app.clientId };
  }
}
