import { Inject, Injectable } from '@nestjs/common';
import { Command } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DirectoryQueries } from '../../directory/directory.queries';
import { CLOCK, type Clock } from '../../platform/clock';
import type { SharedHandler } from '../../platform/commands/command-handlers';
import { EventStreams } from '../../platform/commands/event-streams';
import type { RetryPolicy } from '../../platform/commands/retry-policy';
import type { SnapshotBounds } from '../../platform/commands/snapshotting-decider-handler';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { answerFromReadModelOr } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { appFaultsStream } from '../domain/fault-events';
import type { FaultSpec } from '../domain/fault-spec';
import {
  appFaultsDecider,
  type ClearAppFaults as ClearAppFaultsShape,
  type ClearFault as ClearFaultShape,
  type FaultCommand,
  type SetFault as SetFaultShape,
} from '../domain/faults.decider';
import { FaultRegistry, type FaultView } from './fault-registry';

/**
 * The commands of one app's faults stream, each the decider's command of the same name (domain/
 * faults.decider.ts) without what the handler adds (the time, a new fault's id, the app's developer
 * account). All handled by AppFaultsHandler.
 */
export class SetFault extends Command<FaultView> implements Omit<SetFaultShape, 'developerHubId' | 'faultId' | 'now'> {
  readonly kind = 'SetFault' as const;
  constructor(
    readonly appId: number,
    readonly spec: FaultSpec,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Clears one fault (FaultCleared; 404 when the app has no such fault). */
export class ClearFault extends Command<void> implements Omit<ClearFaultShape, 'now'> {
  readonly kind = 'ClearFault' as const;
  constructor(
    readonly appId: number,
    readonly faultId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Clears all of an app's faults (AppFaultsCleared; nothing when there are none). */
export class ClearAppFaults extends Command<void> implements Omit<ClearAppFaultsShape, 'now'> {
  readonly kind = 'ClearAppFaults' as const;
  constructor(
    readonly appId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Other instances setting faults on the same app at once: more room than the default 5 tries. */
const APP_FAULTS_RETRY_POLICY: RetryPolicy = { maxAttempts: 32 };
/** The kept states: at most MAX_FAULTS_PER_APP fault ids each, a few apps at a time in practice. */
const APP_FAULTS_SNAPSHOTS: SnapshotBounds = { capacity: 256, maxBytes: 4 * 1024 * 1024 };

export const APP_FAULTS_COMMANDS = [SetFault, ClearFault, ClearAppFaults] as const;
type AppFaultsBusCommand = InstanceType<(typeof APP_FAULTS_COMMANDS)[number]>;

/** The one handler of an app's faults stream: the app must exist; a set fault is answered as listed. */
@Injectable()
export class AppFaultsHandler implements SharedHandler<AppFaultsBusCommand> {
  private readonly faults;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly directory: DirectoryQueries,
    private readonly registry: FaultRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    // Commands of one app run one after another in this process (an admin script that sets several
    // faults at once must not lose revision races to itself); a conflict with another instance
    // re-reads the stream and decides again, as every other command does.
    this.faults = streams.forSnapshottedDecider(appFaultsDecider, APP_FAULTS_RETRY_POLICY, APP_FAULTS_SNAPSHOTS);
  }

  async execute(command: AppFaultsBusCommand): Promise<FaultView | undefined> {
    const { appId, context } = command;
    const app = this.directory.getApp(appId);
    if (!app) throw HubSpotError.notFound(`No app with appId ${appId}`);
    const now = this.clock.now();
    if (command.kind !== 'SetFault') {
      const { position } = await this.faults.handle(appFaultsStream(appId), { ...command, now }, context);
      if (position > 0) await this.runner.readModelsReached(position);
      return undefined;
    }
    const faultId = randomUUID();
    const decided: FaultCommand = { ...command, developerHubId: app.developerHubId, faultId, now };
    const { position } = await this.faults.handle(appFaultsStream(appId), decided, context);
    // Committed: answered even if the read model lags (readiness reports it); usually applied by now.
    return answerFromReadModelOr(
      this.runner,
      position,
      () => this.registry.get(appId, faultId),
      () => ({ faultId, appId, ...command.spec, createdAt: this.clock.now(), injected: 0, active: true }),
    );
  }
}
