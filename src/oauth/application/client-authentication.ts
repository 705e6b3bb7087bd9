import { Injectable } from '@nestjs/common';
import { DirectoryQueries } from '../../directory';
import { constantTimeEqual, sha256Hex } from '../../platform/security/constant-time';
import { oauthError } from '../domain/oauth-errors';

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
