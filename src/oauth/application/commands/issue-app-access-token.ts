import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../../directory';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import type { CommandContext } from '../../../platform/events/envelope';
import { SigningKeyring } from '../../../platform/security/signing-keys';
import { encodeAccessToken } from '../../domain/access-token';
import { accessTokenDecider } from '../../domain/access-token.decider';
import { accessTokenStream } from '../../domain/oauth-events';
import type { AuthenticatedClient } from '../client-authentication';
import { newAccessTokenId } from '../token-material';
import { RateLimiters } from '../../rate-limit/rate-limiters';

/** HubSpot's `ClientCredentialsTokenResponse` (OAuth 2026-03): no refresh token, no account. */
export interface ClientCredentialsTokenResponse {
  token_type: 'bearer';
  access_token: string;
  expires_in: number;
  token_use: 'client_credentials';
  scopes: string[];
}

/**
 * The client_credentials grant: an access token of the app itself, for the endpoints meant for the
 * app (introspection, revocation). It names no account, so every CRM endpoint's bearer guard refuses it.
 */
export class IssueAppAccessToken extends Command<ClientCredentialsTokenResponse> {
  constructor(
    readonly client: AuthenticatedClient,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(IssueAppAccessToken)
export class IssueAppAccessTokenHandler implements ICommandHandler<IssueAppAccessToken> {
  private readonly accessTokens;

  constructor(
    streams: EventStreams,
    private readonly keys: SigningKeyring,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: DirectoryQueries,
    private readonly limiters: RateLimiters,
  ) {
    this.accessTokens = streams.forDecider(accessTokenDecider);
  }

  async execute({ client, context }: IssueAppAccessToken): Promise<ClientCredentialsTokenResponse> {
    await this.limiters.acquireTokenRequest(client.appId, 0);
    const ttl = this.config.accessTokenTtlSeconds;
    const issuedAt = Math.floor(this.clock.now() / 1000) * 1000;
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
        scopes: [],
        appToken: true,
      },
      this.keys,
    );
    await this.accessTokens.handleNew(
      accessTokenStream(issuedAt, tokenId),
      { kind: 'IssueAppAccessToken', appId: client.appId, clientId: client.clientId, tokenId, issuedAt, expiresAt },
      context,
    );
    return { token_type: 'bearer', access_token: token, expires_in: ttl, token_use: 'client_credentials', scopes: [] };
  }

  private hubletOfApp(appId: number): string {
    const app = this.directory.getApp(appId);
    return (app && this.directory.getAccount(app.developerHubId)?.hublet) || 'na1';
  }
}
