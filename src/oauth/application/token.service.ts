import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { SigningKeyring } from '../../platform/security/signing-keys';
import { CLOCK, Clock } from '../../platform/clock';
import type { CommandContext } from '../../platform/events/envelope';
import { ConcurrencyError } from '../../platform/event-store/concurrency-error';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/constant-time';
import { encodeAccessToken } from '../domain/access-token';
import { authorizationCodeDecider, AuthorizationCodeReplayed } from '../domain/authorization-code.decider';
import { installDecider, installIsActive } from '../domain/install.decider';
import {
  AccessTokenIssued,
  accessTokenStream,
  authorizationCodeStream,
  installStream,
  OAuthEventType,
  refreshTokenStream,
} from '../domain/oauth-events';
import { oauthError } from '../domain/oauth-errors';
import { RefreshGrant, refreshTokenDecider, usableRefreshGrant } from '../domain/refresh-token.decider';
import type { AuthenticatedClient } from './client-authentication';
import { OAuthStreams } from './oauth-streams';
import { newRefreshToken } from './token-material';

/** HubSpot's token response (`AccessTokenResponse` in oauth.json). */
export interface TokenResponse {
  token_type: 'bearer';
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_use: 'access_token';
  hub_id: number;
  user_id: number;
  scopes: string[];
}

/** How many times a redemption re-decides after losing a race on the code's stream. */
const MAX_REDEEM_ATTEMPTS = 3;

/**
 * The token endpoint's two commands: RedeemAuthorizationCode and IssueAccessTokenFromRefreshToken.
 * Neither waits for projections: the answer comes from the write side only.
 */
@Injectable()
export class TokenService {
  constructor(
    private readonly streams: OAuthStreams,
    private readonly keys: SigningKeyring,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Single use through the code stream's expected revision: the refresh token is written first
   * (so a racing replay always finds it to delete), then the code is marked redeemed. Of two
   * concurrent redemptions exactly one append succeeds; the other re-decides, sees a replay, and
   * deletes the refresh token the winner got (RFC 6749 §4.1.2) as well as its own undelivered one.
   */
  async redeemAuthorizationCode(
    client: AuthenticatedClient,
    input: { code: string; redirectUri: string; codeVerifier: string | undefined },
    ctx: CommandContext,
  ): Promise<TokenResponse> {
    const codeHash = sha256Hex(input.code);
    const codeStreamId = authorizationCodeStream(codeHash);
    let undelivered: RefreshGrant | null = null;
    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const code = await this.streams.load(codeStreamId, authorizationCodeDecider);
      const refreshToken = code.state.status === 'issued' ? newRefreshToken(code.state.grant.hublet) : '';
      const refreshTokenHash = sha256Hex(refreshToken);
      let redeemed;
      try {
        redeemed = authorizationCodeDecider.decide(
          {
            kind: 'RedeemAuthorizationCode',
            clientId: client.clientId,
            redirectUri: input.redirectUri,
            codeVerifier: input.codeVerifier,
            refreshTokenHash,
            now,
          },
          code.state,
        );
      } catch (error) {
        if (undelivered) await this.deleteRefreshToken(undelivered.refreshTokenHash, 'not_delivered', ctx);
        if (error instanceof AuthorizationCodeReplayed) {
          const position = await this.deleteRefreshToken(error.refreshTokenHash, 'authorization_code_replayed', ctx);
          // The replay's effect is visible to the metadata endpoints once this answer arrives.
          await this.runner.waitFor(position);
        }
        throw error;
      }
      if (code.state.status !== 'issued') throw new Error('unreachable: decide accepted a code that is not issued');
      const grant = code.state.grant;

      // An uninstall since the code was issued voids it.
      const install = await this.streams.load(installStream(grant.appId, grant.hubId), installDecider);
      if (!installIsActive(install.state, grant.installId)) {
        throw oauthError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code');
      }

      const refreshGrant: RefreshGrant = {
        refreshTokenHash,
        codeHash,
        appId: grant.appId,
        clientId: grant.clientId,
        hubId: grant.hubId,
        userId: grant.userId,
        installId: grant.installId,
        installingUserId: grant.installingUserId,
        hublet: grant.hublet,
        scopes: grant.scopes,
        issuedAt: now,
      };
      const refreshWrite = this.streams.append(
        refreshTokenStream(refreshTokenHash),
        refreshTokenDecider.decide(
          { kind: 'IssueRefreshToken', grant: refreshGrant },
          refreshTokenDecider.initialState(),
        ),
        'no_stream',
        ctx,
      );
      // The refresh token must be stored before the code is marked redeemed. A store that applies
      // appends in call order guarantees that for two calls made together (they usually share one
      // commit: one fsync instead of two); on any other store, wait for the first.
      if (!this.streams.appendsInCallOrder) await refreshWrite;
      const codeWrite = this.streams.append(codeStreamId, redeemed, code.expected, ctx);
      codeWrite.catch(() => undefined); // awaited below; not unhandled if the refresh token write throws first
      await refreshWrite;
      try {
        await codeWrite;
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
        if (undelivered) await this.deleteRefreshToken(undelivered.refreshTokenHash, 'not_delivered', ctx);
        undelivered = refreshGrant;
        if (attempt >= MAX_REDEEM_ATTEMPTS) {
          await this.deleteRefreshToken(refreshGrant.refreshTokenHash, 'not_delivered', ctx);
          throw HubSpotError.conflict('The authorization code was used by another request at the same time.');
        }
        continue;
      }
      if (undelivered) await this.deleteRefreshToken(undelivered.refreshTokenHash, 'not_delivered', ctx);
      return this.issueAccessToken(refreshGrant, refreshToken, 'authorization_code', ctx);
    }
  }

  /** IssueAccessTokenFromRefreshToken: one read of each small stream, one append. Refresh tokens are not rotated. */
  async refreshAccessToken(
    client: AuthenticatedClient,
    refreshToken: string,
    ctx: CommandContext,
  ): Promise<TokenResponse> {
    const hash = sha256Hex(refreshToken);
    const token = await this.streams.load(refreshTokenStream(hash), refreshTokenDecider);
    const install =
      token.state.status === 'active'
        ? await this.streams.load(installStream(token.state.grant.appId, token.state.grant.hubId), installDecider)
        : { state: installDecider.initialState() };
    const grant = usableRefreshGrant(token.state, install.state, client.clientId);
    return this.issueAccessToken(grant, refreshToken, 'refresh_token', ctx);
  }

  /** Deletes a refresh token (idempotent); returns the position to wait for (0 when nothing changed). */
  async deleteRefreshToken(
    refreshTokenHash: string,
    reason: 'deleted_by_client' | 'authorization_code_replayed' | 'not_delivered',
    ctx: CommandContext,
  ): Promise<number> {
    const streamId = refreshTokenStream(refreshTokenHash);
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.streams.load(streamId, refreshTokenDecider);
      const events = refreshTokenDecider.decide(
        { kind: 'DeleteRefreshToken', reason, now: this.clock.now() },
        loaded.state,
      );
      if (events.length === 0) return 0;
      try {
        return await this.streams.append(streamId, events, loaded.expected, ctx);
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < 5) continue;
        throw error;
      }
    }
  }

  private async issueAccessToken(
    grant: RefreshGrant,
    refreshToken: string,
    grantType: AccessTokenIssued['data']['grantType'],
    ctx: CommandContext,
  ): Promise<TokenResponse> {
    const ttl = this.config.accessTokenTtlSeconds;
    // Second precision, as the token stores it; expires_in is then exactly the TTL.
    const issuedAt = Math.floor(this.clock.now() / 1000) * 1000;
    const expiresAt = issuedAt + ttl * 1000;
    const { token, tokenId } = encodeAccessToken(
      {
        hubId: grant.hubId,
        userId: grant.userId,
        appId: grant.appId,
        installingUserId: grant.installingUserId,
        appInstallId: grant.installId,
        hublet: grant.hublet,
        issuedAt,
        expiresAt,
        scopes: grant.scopes,
      },
      this.keys,
    );
    const event: AccessTokenIssued = {
      type: OAuthEventType.AccessTokenIssued,
      data: {
        tokenId,
        grantType,
        refreshTokenHash: grant.refreshTokenHash,
        appId: grant.appId,
        hubId: grant.hubId,
        userId: grant.userId,
        installId: grant.installId,
        issuedAt,
        expiresAt,
      },
    };
    await this.streams.append(accessTokenStream(issuedAt, tokenId), [event], 'no_stream', ctx);
    return {
      token_type: 'bearer',
      access_token: token,
      refresh_token: refreshToken,
      expires_in: ttl,
      token_use: 'access_token',
      hub_id: grant.hubId,
      user_id: grant.userId,
      scopes: grant.scopes,
    };
  }
}
