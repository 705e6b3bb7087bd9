import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { DirectoryQueries } from '../../directory/directory.queries';
import { EventStreams } from '../../platform/commands/event-streams';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/crypto';
import { installDecider } from '../domain/install.decider';
import { installStream, refreshTokenStream } from '../domain/oauth-events';
import { refreshGrantOrNull, refreshTokenDecider } from '../domain/refresh-token.decider';
import { refreshTokenNotFound } from '../domain/oauth-errors';
import { type AccessTokenInfo, accessTokenInfo, AccessTokenVerifier } from './access-token-verifier';
import type { AuthenticatedClient } from './oauth-form';
import { InstallQueries } from './install.queries';

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
 * Metadata of refresh tokens (from the read model, by hash) and RFC 7662 introspection. An access
 * token's metadata needs no store: its route (TokenMetadataController) answers it from the one check
 * (AccessTokenVerifier). See docs/oauth-errors.md for the error statuses.
 */
@Injectable()
export class TokenMetadataService {
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
      userEmail: claims.appToken ? '' : this.directory.userEmail(claims.userId),
      hubDomain: claims.appToken ? '' : this.directory.accountDomain(claims.hubId),
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
      user: this.directory.userEmail(grant.userId),
      hub_domain: this.directory.accountDomain(grant.hubId),
      scopes: grant.scopes,
      hub_id: grant.hubId,
      app_id: grant.appId,
      client_id: grant.clientId,
      user_id: grant.userId,
      token_type: 'refresh',
      token_use: 'refresh_token',
    };
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
      user: this.directory.userEmail(view.userId),
      hub_domain: this.directory.accountDomain(view.hubId),
      scopes: view.scopes,
      hub_id: view.hubId,
      client_id: view.clientId,
      user_id: view.userId,
      token_type: 'refresh',
    };
  }
}
