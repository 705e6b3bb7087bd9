import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { sha256Hex } from '../../../platform/security/constant-time';
import { installDecider } from '../../domain/install.decider';
import { installStream, refreshTokenStream } from '../../domain/oauth-events';
import { refreshTokenDecider, usableRefreshGrant } from '../../domain/refresh-token.decider';
import { RateLimiters } from '../../rate-limit/rate-limiters';
import type { AuthenticatedClient } from '../client-authentication';
import { IssueToken, type TokenResponse } from './issue-token';

/** The refresh_token grant. Refresh tokens are not rotated: the response carries the same one. */
export class IssueAccessTokenFromRefreshToken extends Command<TokenResponse> {
  constructor(
    readonly client: AuthenticatedClient,
    readonly refreshToken: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * The hot path: one read of each small stream (both usually in the store's stream cache), the
 * usable-refresh-token rule, the per-app limit, then IssueToken's one append. No projection is read or waited for.
 */
@CommandHandler(IssueAccessTokenFromRefreshToken)
export class IssueAccessTokenFromRefreshTokenHandler implements ICommandHandler<IssueAccessTokenFromRefreshToken> {
  constructor(
    private readonly streams: EventStreams,
    private readonly commandBus: CommandBus,
    private readonly limiters: RateLimiters,
  ) {}

  async execute({ client, refreshToken, context }: IssueAccessTokenFromRefreshToken): Promise<TokenResponse> {
    const token = await this.streams.load(refreshTokenStream(sha256Hex(refreshToken)), refreshTokenDecider);
    const install =
      token.state.status === 'active'
        ? (await this.streams.load(installStream(token.state.grant.appId, token.state.grant.hubId), installDecider))
            .state
        : installDecider.initialState();
    const grant = usableRefreshGrant(token.state, install, client.clientId);
    // HubSpot's per-app limit, per app and account, before anything is written.
    await this.limiters.acquireTokenRequest(grant.appId, grant.hubId);
    return this.commandBus.execute(new IssueToken(grant, refreshToken, 'refresh_token', context));
  }
}
