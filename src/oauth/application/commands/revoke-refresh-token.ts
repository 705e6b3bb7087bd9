import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { refreshTokenStream, type RefreshTokenDeletionReason } from '../../domain/oauth-events';
import { refreshTokenDecider } from '../../domain/refresh-token.decider';

export interface RevokedRefreshToken {
  /** Global position to wait for before reading the effect; 0 when it was already deleted. */
  position: number;
}

/**
 * Deletes a refresh token: by its client (DELETE /oauth/v1/refresh-tokens/{token}), because the
 * code it came from was replayed, or because it was never handed out. Idempotent; an unknown token
 * is 404. Access tokens already issued from it stay valid (HubSpot's behaviour).
 */
export class RevokeRefreshToken extends Command<RevokedRefreshToken> {
  constructor(
    readonly refreshTokenHash: string,
    readonly reason: RefreshTokenDeletionReason,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RevokeRefreshToken)
export class RevokeRefreshTokenHandler implements ICommandHandler<RevokeRefreshToken> {
  private readonly refreshTokens;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.refreshTokens = streams.forDecider(refreshTokenDecider);
  }

  async execute({ refreshTokenHash, reason, context }: RevokeRefreshToken): Promise<RevokedRefreshToken> {
    const { position } = await this.refreshTokens.handle(
      refreshTokenStream(refreshTokenHash),
      { type: 'DeleteRefreshToken', reason, now: this.clock.now() },
      context,
    );
    return { position };
  }
}
