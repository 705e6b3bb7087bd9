import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../../directory';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { appFaultsStream } from '../../domain/fault-events';
import { appFaultsDecider } from '../../domain/faults.decider';

/** Clears one fault (FaultCleared; 404 when the app has no such fault) or all of an app's (AppFaultsCleared). */
export class ClearFaults extends Command<void> {
  constructor(
    readonly appId: number,
    readonly faultId: string | null,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ClearFaults)
export class ClearFaultsHandler implements ICommandHandler<ClearFaults> {
  private readonly faults;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly directory: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.faults = streams.forDecider(appFaultsDecider);
  }

  async execute({ appId, faultId, context }: ClearFaults): Promise<void> {
    if (!this.directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
    const now = this.clock.now();
    const { position } = await this.faults.handle(
      appFaultsStream(appId),
      faultId === null ? { kind: 'ClearAppFaults', appId, now } : { kind: 'ClearFault', appId, faultId, now },
      context,
    );
    if (position > 0) await this.runner.readModelsReached(position);
  }
}
