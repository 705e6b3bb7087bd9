import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { installDecider, type InstallCommand } from '../../domain/install.decider';
import { installStream, OAuthEventType } from '../../domain/oauth-events';
import { InstallClocks } from '../../../platform/clock';

export interface ExpiredInstallAccessTokens {
  appId: number;
  hubId: number;
  /** Epoch ms: tokens of the install issued until then (within that second) are expired. */
  expiredAt: number;
}

/**
 * InstallAccessTokensExpired: every access token of the install issued so far expires now (tests of
 * token expiry without waiting 30 minutes). Refresh tokens keep working; 404 when not installed.
 * Answers once this instance's bearer guard refuses those tokens.
 */
export class ExpireInstallAccessTokens
  extends Command<ExpiredInstallAccessTokens>
  implements Omit<Extract<InstallCommand, { type: 'ExpireInstallAccessTokens' }>, 'now'>
{
  readonly type = 'ExpireInstallAccessTokens' as const;
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ExpireInstallAccessTokens)
export class ExpireInstallAccessTokensHandler implements ICommandHandler<ExpireInstallAccessTokens> {
  private readonly installs;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly installClocks: InstallClocks,
  ) {
    this.installs = streams.forDecider(installDecider);
  }

  async execute(command: ExpireInstallAccessTokens): Promise<ExpiredInstallAccessTokens> {
    const { appId, hubId } = command;
    const now = this.installClocks.nowFor(appId, hubId);
    const clockEpoch = this.installClocks.epochOf(appId, hubId);
    const { position, events } = await this.installs.handle(
      installStream(appId, hubId),
      { ...command, now, clockEpoch },
      command.context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
    const expired = events.find((e) => e.type === OAuthEventType.InstallAccessTokensExpired);
    return { appId, hubId, expiredAt: expired?.data.expiredAt ?? now };
  }
}
