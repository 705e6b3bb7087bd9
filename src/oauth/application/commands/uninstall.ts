import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { installDecider, type InstallCommand } from '../../domain/install.decider';
import { installStream } from '../../domain/oauth-events';
import { InstallClocks } from '../../../platform/clock';

/** AppUninstalled: the install's refresh tokens and unredeemed codes stop working; 404 when not installed. */
export class Uninstall extends Command<void> implements Omit<Extract<InstallCommand, { type: 'Uninstall' }>, 'now'> {
  readonly type = 'Uninstall' as const;
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Answers once the read models hold the uninstall (install lists, refresh-token metadata). Its time is
 * the furthest the install's own clock reached (InstallClocks): the revocation it starts is kept a day
 * past it, so it outlives every access token of the install, those issued ahead of real time included.
 */
@CommandHandler(Uninstall)
export class UninstallHandler implements ICommandHandler<Uninstall> {
  private readonly installs;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly installClocks: InstallClocks,
  ) {
    this.installs = streams.forDecider(installDecider);
  }

  async execute(command: Uninstall): Promise<void> {
    const { appId, hubId } = command;
    const now = this.installClocks.furthestFor(appId, hubId);
    const { position } = await this.installs.handle(installStream(appId, hubId), { ...command, now }, command.context);
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }
}
