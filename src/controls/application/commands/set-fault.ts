import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DirectoryQueries } from '../../../directory';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { appFaultsStream } from '../../domain/fault-events';
import type { FaultSpec } from '../../domain/fault-spec';
import { appFaultsDecider } from '../../domain/faults.decider';
import { FaultRegistry, type FaultView } from '../fault-registry';

/** Sets a fault on an app (FaultSet); answers it as listed, once this instance applies it. */
export class SetFault extends Command<FaultView> {
  constructor(
    readonly appId: number,
    readonly spec: FaultSpec,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SetFault)
export class SetFaultHandler implements ICommandHandler<SetFault> {
  private readonly faults;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly directory: DirectoryQueries,
    private readonly registry: FaultRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.faults = streams.forDecider(appFaultsDecider);
  }

  async execute({ appId, spec, context }: SetFault): Promise<FaultView> {
    const app = this.directory.getApp(appId);
    if (!app) throw HubSpotError.notFound(`No app with appId ${appId}`);
    const faultId = randomUUID();
    const { position } = await this.faults.handle(
      appFaultsStream(appId),
      { kind: 'SetFault', appId, developerHubId: app.developerHubId, faultId, spec, now: this.clock.now() },
      context,
    );
    // Committed: answered even if the read model lags (readiness reports it); usually applied by now.
    await this.runner.readModelsReached(position);
    const view = this.registry.get(appId, faultId);
    if (view) return view;
    return {
      faultId,
      appId,
      ...spec,
      createdAt: this.clock.now(),
      injected: 0,
      active: true,
    };
  }
}
