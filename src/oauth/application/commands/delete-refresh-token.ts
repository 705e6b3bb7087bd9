import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { refreshTokenStream, type RefreshTokenDeletionReason } from '../../domain/oauth-events';
import { refreshTokenDecider, type RefreshTokenCommand } from '../../domain/refresh-token.decider';

export interface DeletedRefreshToken {
  /** Global position to wait for before reading the effect; 0 when it was already deleted. */
  position: number;
}

/**
 * Deletes a refresh token: by its client (DELETE /oauth/v1/refresh-tokens/{token}), because the
 * code it came from was replayed, or because it was never handed out. Idempotent; an unknown token
 * is 404. Access tokens already issued from it stay valid (HubSpot's behaviour).
 */
export class DeleteRefreshToken
  extends Command<DeletedRefreshToken>
  implements Omit<Extract<RefreshTokenCommand, { type: 'DeleteRefreshToken' }>, 'now'>
{
  readonly type = 'DeleteRefreshToken' as const;
  constructor(
    readonly refreshTokenHash: string,
    readonly reason: RefreshTokenDeletionReason,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(DeleteRefreshToken)
export class DeleteRefreshTokenHandler implements ICommandHandler<DeleteRefreshToken> {
  private readonly refreshTokens;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.refreshTokens = streams.forDecider(refreshTokenDecider);
  }

  async execute(command: DeleteRefreshToken): Promise<DeletedRefreshToken> {
    const { position } = await this.refreshTokens.handle(
      refreshTokenStream(command.refreshTokenHash),
      { ...command, now: this.clock.now() },
      command.context,
    );
    return { position };
  }
}
