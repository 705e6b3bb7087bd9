import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../../directory/directory.queries';
import { EventStreams } from '../../../platform/commands/event-streams';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import type { CommandContext } from '../../../platform/events/envelope';
import { sha256Hex } from '../../../platform/security/crypto';
import {
  SigningKeyring,
  encodeAccessToken,
  grantIdOf,
  newAccessTokenId,
  accessTokenDecider,
} from '../../domain/access-token';
import { accessTokenIssueFloor, installDecider, type InstallState } from '../../domain/install.decider';
import {
  type AccessTokenIssued,
  accessTokenStream,
  installStream,
  refreshTokenStream,
} from '../../domain/oauth-events';
import { type RefreshGrant, refreshTokenDecider, usableRefreshGrant } from '../../domain/refresh-token.decider';
import { RateLimiters } from '../../rate-limit/rate-limiters';
import type { AuthenticatedClient } from '../oauth-form';
import { InstallClocks } from '../../../platform/clock';
import { AuthorizationCodeRedemption } from './redeem-authorization-code';

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

/** HubSpot's `ClientCredentialsTokenResponse` (OAuth 2026-03): no refresh token, no account. */
export interface ClientCredentialsTokenResponse {
  token_type: 'bearer';
  access_token: string;
  expires_in: number;
  token_use: 'client_credentials';
  scopes: string[];
}

/** What the client presented for each grant of the token endpoint (its form, already read). */
export type TokenGrantRequest =
  | { grantType: 'refresh_token'; refreshToken: string }
  | { grantType: 'authorization_code'; code: string; redirectUri: string; codeVerifier: string | undefined }
  | { grantType: 'client_credentials'; scopes: string[] };

/** A token for an authenticated client, by one of the token endpoint's grants. */
export class IssueToken extends Command<TokenResponse | ClientCredentialsTokenResponse> {
  constructor(
    readonly client: AuthenticatedClient,
    readonly grant: TokenGrantRequest,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * The token endpoint's one process, over its grants:
 *  - refresh_token (the hot path): one read of each small stream (both usually in the store's
 *    stream cache), the usable-refresh-token rule, the per-app limit, one append. Refresh tokens are
 *    not rotated: the answer carries the same one;
 *  - authorization_code: AuthorizationCodeRedemption stores a refresh token and marks the code
 *    redeemed, then the access token is issued as for a refresh;
 *  - client_credentials: an access token of the app itself, for the endpoints meant for the app
 *    (introspection, revocation); it names no account, so every CRM endpoint's bearer guard refuses it.
 * Each access token is AccessTokenIssued on its own, new stream, named by a fresh random id, so the
 * bound decider decides on its initial state (`handleNew`: no extra store read). No projection is
 * read or waited for: the answer comes from the write side only.
 */
@CommandHandler(IssueToken)
export class IssueTokenHandler implements ICommandHandler<IssueToken> {
  private readonly accessTokens;

  constructor(
    private readonly streams: EventStreams,
    private readonly keys: SigningKeyring,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiters: RateLimiters,
    private readonly directory: DirectoryQueries,
    private readonly codes: AuthorizationCodeRedemption,
    private readonly installClocks: InstallClocks,
  ) {
    this.accessTokens = streams.forDecider(accessTokenDecider);
  }

  execute({ client, grant, context }: IssueToken): Promise<TokenResponse | ClientCredentialsTokenResponse> {
    switch (grant.grantType) {
      case 'refresh_token':
        return this.refreshTokenGrant(client, grant.refreshToken, context);
      case 'authorization_code':
        return this.authorizationCodeGrant(client, grant, context);
      case 'client_credentials':
        return this.clientCredentialsGrant(client, grant.scopes, context);
    }
  }

  private async refreshTokenGrant(
    client: AuthenticatedClient,
    refreshToken: string,
    context: CommandContext,
  ): Promise<TokenResponse> {
    const token = await this.streams.load(refreshTokenStream(sha256Hex(refreshToken)), refreshTokenDecider);
    const install =
      token.state.status === 'active'
        ? (await this.streams.load(installStream(token.state.grant.appId, token.state.grant.hubId), installDecider))
            .state
        : installDecider.initialState();
    const grant = usableRefreshGrant(token.state, install, client.clientId);
    // HubSpot's per-app limit, per app and account, before anything is written.
    await this.limiters.acquireTokenRequest(grant.appId, grant.hubId);
    return this.issueInstallToken(grant, refreshToken, 'refresh_token', install, context);
  }

  private async authorizationCodeGrant(
    client: AuthenticatedClient,
    grant: Extract<TokenGrantRequest, { grantType: 'authorization_code' }>,
    context: CommandContext,
  ): Promise<TokenResponse> {
    const redeemed = await this.codes.redeem(client, grant, context);
    return this.issueInstallToken(
      redeemed.grant,
      redeemed.refreshToken,
      'authorization_code',
      redeemed.install,
      context,
    );
  }

  /**
   * An access token of an install, from a refresh token the grant found usable (or just stored). Its
   * times are on the install's clock, in that clock's era (`clockEpoch`, carried by the token). It
   * expires `expires_in` after the install's time now (to the second below): never later, even when
   * the issue time is moved to the second after an expiry by an admin (issueFloor).
   */
  private async issueInstallToken(
    grant: RefreshGrant,
    refreshToken: string,
    grantType: AccessTokenIssued['data']['grantType'],
    install: InstallState,
    context: CommandContext,
  ): Promise<TokenResponse> {
    const ttl = this.config.accessTokenTtlSeconds;
    const clockEpoch = this.installClocks.epochOf(grant.appId, grant.hubId);
    const now = this.wholeSecond(this.nowFor(grant.appId, grant.hubId));
    const issuedAt = Math.max(now, accessTokenIssueFloor(install, clockEpoch));
    const expiresAt = now + ttl * 1000;
    const tokenId = newAccessTokenId();
    const { token } = encodeAccessToken(
      {
        tokenId,
        hubId: grant.hubId,
        userId: grant.userId,
        appId: grant.appId,
        installingUserId: grant.installingUserId,
        appInstallId: grant.installId,
        // The refresh token it comes from: a replay of the code revokes every token of the grant.
        grantId: grantIdOf(grant.refreshTokenHash),
        clockEpoch,
        hublet: grant.hublet,
        issuedAt,
        expiresAt,
        scopes: grant.scopes,
      },
      this.keys,
    );
    await this.accessTokens.handleNew(
      accessTokenStream(issuedAt, tokenId),
      { type: 'IssueAccessToken', grant, grantType, tokenId, issuedAt, expiresAt },
      context,
    );
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

  private async clientCredentialsGrant(
    client: AuthenticatedClient,
    scopes: string[],
    context: CommandContext,
  ): Promise<ClientCredentialsTokenResponse> {
    await this.limiters.acquireTokenRequest(client.appId, 0);
    const ttl = this.config.accessTokenTtlSeconds;
    const issuedAt = this.wholeSecond(this.nowFor(client.appId, 0));
    const expiresAt = issuedAt + ttl * 1000;
    const tokenId = newAccessTokenId();
    const { token } = encodeAccessToken(
      {
        tokenId,
        hubId: 0,
        userId: 0,
        appId: client.appId,
        installingUserId: 0,
        // The hublet of the developer account that owns the app.
        hublet: this.hubletOfApp(client.appId),
        issuedAt,
        expiresAt,
        scopes,
        appToken: true,
      },
      this.keys,
    );
    await this.accessTokens.handleNew(
      accessTokenStream(issuedAt, tokenId),
      { type: 'IssueAppAccessToken', appId: client.appId, clientId: client.clientId, tokenId, issuedAt, expiresAt },
      context,
    );
    return { token_type: 'bearer', access_token: token, expires_in: ttl, token_use: 'client_credentials', scopes };
  }

  /** Second precision, as the token stores its times (expires_in is then exactly the TTL). */
  private wholeSecond(ms: number): number {
    return Math.floor(ms / 1000) * 1000;
  }

  /** The time tokens of the install are issued at: its own clock (InstallClocks; an app token's account 0 has none). */
  private nowFor(appId: number, hubId: number): number {
    return this.installClocks.nowFor(appId, hubId);
  }

  private hubletOfApp(appId: number): string {
    const app = this.directory.getApp(appId);
    return (app && this.directory.getAccount(app.developerHubId)?.hublet) || 'na1';
  }
}
