import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { DirectoryQueries } from '../../directory';
import { EventStreams } from '../../platform/commands/event-streams';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/constant-time';
import type { AccessTokenClaims } from '../domain/access-token';
import { encodeScopes, scopeIndex } from '../../platform/scopes/scope-catalog';
import { installDecider } from '../domain/install.decider';
import { installStream, refreshTokenStream } from '../domain/oauth-events';
import { refreshGrantOrNull, refreshTokenDecider, refreshTokenNotFound } from '../domain/refresh-token.decider';
import { accessTokenExpiredError, AccessTokenVerifier } from './access-token-verifier';
import type { AuthenticatedClient } from './client-authentication';
import { InstallQueries } from './install.queries';

/** HubSpot's `SignedAccessToken` (oauth.json): the decoded token, its scope fields as encoded strings. */
export interface SignedAccessTokenView {
  appId: number;
  appInstallId: string;
  audience: string;
  expiresAt: number;
  hubId: number;
  hublet: string;
  installingUserId: number;
  isPrivateDistribution: boolean;
  isServiceAccount: boolean;
  isUserLevel: boolean;
  newSignature: string;
  scopeToScopeGroupPks: string;
  scopes: string;
  signature: string;
  trialScopeToScopeGroupPks: string;
  trialScopes: string;
  userId: number;
}

/** HubSpot's `AccessTokenInfoResponse`. */
export interface AccessTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  signed_access_token: SignedAccessTokenView;
  hub_id: number;
  app_id: number;
  expires_in: number;
  user_id: number;
  token_type: 'access';
  is_private_distribution: boolean;
}

/**
 * The two encoded scope fields of a scope list. An install has one scope list, so a service sees few
 * of them: each is encoded once and remembered (keyed by the list as written, since order shows in
 * the bytes), up to SCOPE_ENCODINGS_MAX lists, after which the memo starts over.
 */
const SCOPE_ENCODINGS_MAX = 1024;
const scopeEncodings = new Map<string, { groupPks: string; scopes: string }>();

export function encodedScopeFields(scopes: readonly string[]): { groupPks: string; scopes: string } {
  const key = scopes.join(' ');
  let encoded = scopeEncodings.get(key);
  if (encoded === undefined) {
    if (scopeEncodings.size >= SCOPE_ENCODINGS_MAX) scopeEncodings.clear();
    encoded = { groupPks: encodeScopeGroupPks(scopes), scopes: encodeScopes(scopes).toString('base64') };
    scopeEncodings.set(key, encoded);
  }
  return encoded;
}

/**
 * Scope group pks as HubSpot encodes them: a compact binary list, base64. Here each catalog entry
 * is its own group, pk = catalog index + 1, written as varints.
 */
function encodeScopeGroupPks(scopes: readonly string[]): string {
  const bytes: number[] = [];
  for (const s of scopes) {
    let v = (scopeIndex(s) ?? -1) + 1;
    if (v <= 0) continue;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    bytes.push(v);
  }
  return Buffer.from(bytes).toString('base64');
}

export function accessTokenInfo(input: {
  token: string;
  claims: AccessTokenClaims;
  now: number;
  userEmail: string;
  hubDomain: string;
  audience: string;
}): AccessTokenInfo {
  const { token, claims } = input;
  const [kid, , signature] = token.split('.') as [string, string, string];
  const encoded = encodedScopeFields(claims.scopes);
  return {
    token,
    user: input.userEmail,
    hub_domain: input.hubDomain,
    scopes: claims.scopes,
    signed_access_token: {
      appId: claims.appId,
      appInstallId: claims.appInstallId ?? '',
      audience: input.audience,
      expiresAt: claims.expiresAt,
      hubId: claims.hubId,
      hublet: claims.hublet,
      installingUserId: claims.installingUserId,
      isPrivateDistribution: false,
      isServiceAccount: false,
      isUserLevel: false,
      newSignature: `${kid}.${signature}`,
      scopeToScopeGroupPks: encoded.groupPks,
      scopes: encoded.scopes,
      signature,
      trialScopeToScopeGroupPks: '',
      trialScopes: '',
      userId: claims.userId,
    },
    hub_id: claims.hubId,
    app_id: claims.appId,
    expires_in: Math.max(0, Math.floor((claims.expiresAt - input.now) / 1000)),
    user_id: claims.userId,
    token_type: 'access',
    is_private_distribution: false,
  };
}

/** HubSpot's `RefreshTokenInfoResponse`. */
export interface RefreshTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  hub_id: number;
  client_id: string;
  user_id: number;
  token_type: 'refresh';
}

/** HubSpot's `PublicAccessTokenInfoResponse` (OAuth 2026-03 introspection, RFC 7662). */
export interface PublicAccessTokenInfo extends Omit<AccessTokenInfo, 'token_type'> {
  active: true;
  client_id: string;
  token_type: string;
  token_use: 'access_token';
}

/** HubSpot's `PublicRefreshTokenInfoResponse`. */
export interface PublicRefreshTokenInfo {
  active: true;
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  hub_id: number;
  app_id: number;
  client_id: string;
  user_id: number;
  token_type: 'refresh';
  token_use: 'refresh_token';
}

export type IntrospectionResponse = PublicAccessTokenInfo | PublicRefreshTokenInfo | { active: false };

export type TokenTypeHint = 'access_token' | 'refresh_token';

/**
 * Metadata of access tokens (decoded from the token itself: no store lookup) and of refresh
 * tokens (from the read model, by hash). See docs/oauth-errors.md for the error statuses.
 */
@Injectable()
export class TokenMetadataService {
  // E-mails and domains never change once created: remembering them keeps the metadata GET
  // to a signature check and two map lookups. Nothing secret is cached.
  private readonly emails = new Map<number, string>();
  private readonly domains = new Map<number, string>();

  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly runner: ProjectionRunner,
    private readonly streams: EventStreams,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * RFC 7662 introspection for `client`: its own tokens that still work are described; every other
   * token (unknown, expired, revoked, uninstalled, another client's) is just `{active: false}`.
   */
  async introspect(client: AuthenticatedClient, token: string, hint?: TokenTypeHint): Promise<IntrospectionResponse> {
    // The hint orders the search (RFC 7662 §2.1); a token of the other kind is still found.
    const order: TokenTypeHint[] =
      hint === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
    for (const kind of order) {
      const found =
        kind === 'access_token'
          ? this.introspectAccessToken(client, token)
          : await this.introspectRefreshToken(client, token);
      if (found) return found;
    }
    return { active: false };
  }

  private introspectAccessToken(client: AuthenticatedClient, token: string): PublicAccessTokenInfo | null {
    const check = this.verifier.check(token);
    if (check.status !== 'active' || check.claims.appId !== client.appId) return null;
    const { claims, now } = check;
    const info = accessTokenInfo({
      token,
      claims,
      now,
      userEmail: claims.appToken ? '' : this.emailOf(claims.userId),
      hubDomain: claims.appToken ? '' : this.domainOf(claims.hubId),
      audience: this.config.publicUrl,
    });
    return {
      active: true,
      ...info,
      client_id: client.clientId,
      token_type: claims.appToken ? 'client_credentials' : info.token_type,
      token_use: 'access_token',
    };
  }

  /** From the write side (the token's and its install's streams): a token fresh from the token endpoint is found. */
  private async introspectRefreshToken(
    client: AuthenticatedClient,
    token: string,
  ): Promise<PublicRefreshTokenInfo | null> {
    if (token.length > 512) return null;
    const { state } = await this.streams.load(refreshTokenStream(sha256Hex(token)), refreshTokenDecider);
    if (state.status !== 'active' || state.grant.clientId !== client.clientId) return null; // no install read
    const install = await this.streams.load(installStream(state.grant.appId, state.grant.hubId), installDecider);
    const grant = refreshGrantOrNull(state, install.state, client.clientId);
    if (grant === null) return null;
    return {
      active: true,
      token,
      user: this.emailOf(grant.userId),
      hub_domain: this.domainOf(grant.hubId),
      scopes: grant.scopes,
      hub_id: grant.hubId,
      app_id: grant.appId,
      client_id: grant.clientId,
      user_id: grant.userId,
      token_type: 'refresh',
      token_use: 'refresh_token',
    };
  }

  accessTokenInfo(token: string): AccessTokenInfo {
    const check = this.verifier.check(token);
    switch (check.status) {
      case 'malformed':
        throw new HubSpotError(400, 'VALIDATION_ERROR', 'The access token is malformed.', {
          status: 'BAD_ACCESS_TOKEN',
          errors: [{ message: 'not an access token issued by this service', in: 'token', code: 'INVALID' }],
        });
      case 'bad_signature':
        throw new HubSpotError(
          401,
          'INVALID_AUTHENTICATION',
          'The access token is not valid: its signature does not verify.',
          {
            status: 'BAD_ACCESS_TOKEN',
          },
        );
      case 'expired':
        throw accessTokenExpiredError(check.expiredAt, check.now, 'metadata');
      case 'revoked':
        throw notAnInstallToken();
    }
    const { claims, now } = check;
    // App tokens (client_credentials) and revoked or uninstalled ones are described only by introspection.
    if (claims.appToken) throw notAnInstallToken();
    return accessTokenInfo({
      token,
      claims,
      now,
      userEmail: this.emailOf(claims.userId),
      hubDomain: this.domainOf(claims.hubId),
      audience: this.config.publicUrl,
    });
  }

  async refreshTokenInfo(token: string): Promise<RefreshTokenInfo> {
    const hash = sha256Hex(token);
    let view = this.installs.findUsableRefreshToken(hash);
    if (!view) {
      // Token endpoint answers do not wait for projections; a token fresh from it may not be
      // projected yet. Only a token whose stream exists is worth waiting for, and only up to its
      // own newest event: an unknown token answers at once.
      const { position } = await this.streams.load(refreshTokenStream(hash), refreshTokenDecider);
      if (position > 0) {
        await this.runner.waitFor(position);
        view = this.installs.findUsableRefreshToken(hash);
      }
    }
    if (!view) throw refreshTokenNotFound();
    return {
      token,
      user: this.emailOf(view.userId),
      hub_domain: this.domainOf(view.hubId),
      scopes: view.scopes,
      hub_id: view.hubId,
      client_id: view.clientId,
      user_id: view.userId,
      token_type: 'refresh',
    };
  }

  private emailOf(userId: number): string {
    let email = this.emails.get(userId);
    if (email === undefined) {
      email = this.directory.getUser(userId)?.email;
      if (email === undefined) return '';
      this.emails.set(userId, email);
    }
    return email;
  }

  private domainOf(hubId: number): string {
    let domain = this.domains.get(hubId);
    if (domain === undefined) {
      domain = this.directory.getAccount(hubId)?.domain;
      if (domain === undefined) return '';
      this.domains.set(hubId, domain);
    }
    return domain;
  }
}

const notAnInstallToken = () =>
  new HubSpotError(
    401,
    'INVALID_AUTHENTICATION',
    'The access token is not valid: it was revoked or is not an install token.',
    {
      status: 'BAD_ACCESS_TOKEN',
    },
  );
