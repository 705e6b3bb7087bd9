import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import type { CommandContext } from '../../../platform/events/envelope';
import { SigningKeyring } from '../../../platform/security/signing-keys';
import { encodeAccessToken } from '../../domain/access-token';
import { accessTokenDecider } from '../../domain/access-token.decider';
import { type AccessTokenIssued, accessTokenStream } from '../../domain/oauth-events';
import type { RefreshGrant } from '../../domain/refresh-token.decider';
import { AccessTokenRevocations } from '../access-token-revocations';
import { InstallClocks } from '../install-clocks';
import { newAccessTokenId } from '../token-material';

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

/**
 * Where both grants of the token endpoint end: an access token from a refresh token the caller
 * found usable for the client (the refresh grant), or just stored (the authorization-code grant).
 */
export class IssueToken extends Command<TokenResponse> {
  constructor(
    readonly grant: RefreshGrant,
    /** The plain refresh token, handed back in the response. */
    readonly refreshToken: string,
    readonly grantType: AccessTokenIssued['data']['grantType'],
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * AccessTokenIssued on the token's own, new stream. That stream is named by a fresh random id, so
 * the bound decider decides on its initial state (`handleNew`: the refresh grant is the hot path;
 * it gets no extra store read).
 */
@CommandHandler(IssueToken)
export class IssueTokenHandler implements ICommandHandler<IssueToken> {
  private readonly accessTokens;

  constructor(
    streams: EventStreams,
    private readonly keys: SigningKeyring,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly revocations: AccessTokenRevocations,
    private readonly installClocks: InstallClocks,
  ) {
    this.accessTokens = streams.forDecider(accessTokenDecider);
  }

  async execute({ grant, refreshToken, grantType, context }: IssueToken): Promise<TokenResponse> {
    const ttl = this.config.accessTokenTtlSeconds;
    // Second precision, as the token stores it; expires_in is then exactly the TTL. An admin who just
    // expired the install's tokens expired that whole second: a new token starts at the next one.
    const issuedAt = Math.max(
      Math.floor(this.installClocks.nowFor(grant.appId, grant.hubId) / 1000) * 1000,
      this.revocations.issueFloor(grant.installId),
    );
    const expiresAt = issuedAt + ttl * 1000;
    const tokenId = newAccessTokenId();
    const { token } = encodeAccessToken(
      {
        tokenId,
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
    await this.accessTokens.handleNew(
      accessTokenStream(issuedAt, tokenId),
      { kind: 'IssueAccessToken', grant, grantType, tokenId, issuedAt, expiresAt },
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
}
