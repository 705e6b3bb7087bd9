import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { installDecider } from '../../domain/install.decider';
import { installStream } from '../../domain/oauth-events';

/** AppUninstalled: the install's refresh tokens and unredeemed codes stop working; 404 when not installed. */
export class Uninstall extends Command<void> {
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Answers once the read models hold the uninstall (install lists, refresh-token metadata). */
@CommandHandler(Uninstall)
export class UninstallHandler implements ICommandHandler<Uninstall> {
  private readonly installs;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.installs = streams.forDecider(installDecider);
  }

  async execute({ appId, hubId, context }: Uninstall): Promise<void> {
    const { position } = await this.installs.handle(
      installStream(appId, hubId),
      { kind: 'Uninstall', appId, hubId, now: this.clock.now() },
      context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }
}
