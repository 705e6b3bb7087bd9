import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../../directory';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { installClockDecider, installClockStream } from '../../domain/install-clock';
import { InstallClocks } from '../install-clocks';
import { InstallQueries } from '../install.queries';

/** GET …/clock: the install's offset and its time now (epoch ms, as HubSpot's timestamps). */
export interface InstallClockView {
  appId: number;
  hubId: number;
  offsetSeconds: number;
  /** The install's time: the service's time plus the offset. */
  installTime: number;
  /** The service's own (real) time. */
  realTime: number;
}

/** 404 unless the account and the app exist and the app is installed there (or, `orHasClock`, still has a clock). */
export function checkInstall(
  directory: DirectoryQueries,
  installs: InstallQueries,
  clocks: InstallClocks,
  appId: number,
  hubId: number,
  orHasClock = false,
): void {
  if (!directory.getAccount(hubId)) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
  if (!directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
  if (installs.isInstalled(appId, hubId)) return;
  if (orHasClock && clocks.offsetMs(appId, hubId) > 0) return;
  throw HubSpotError.notFound(`The app ${appId} is not installed in account ${hubId}`);
}

export function installClockView(clocks: InstallClocks, clock: Clock, appId: number, hubId: number): InstallClockView {
  const realTime = clock.now();
  const offsetMs = clocks.offsetMs(appId, hubId);
  return { appId, hubId, offsetSeconds: offsetMs / 1000, installTime: realTime + offsetMs, realTime };
}

/** InstallClockAdvanced: the install's time moves `advanceSeconds` further ahead (cumulative). */
export class AdvanceInstallClock extends Command<InstallClockView> {
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly advanceSeconds: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** InstallClockReset: the install returns to real time. */
export class ResetInstallClock extends Command<void> {
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(AdvanceInstallClock)
export class AdvanceInstallClockHandler implements ICommandHandler<AdvanceInstallClock> {
  private readonly streams;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly clocks: InstallClocks,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.streams = streams.forDecider(installClockDecider);
  }

  async execute({ appId, hubId, advanceSeconds, context }: AdvanceInstallClock): Promise<InstallClockView> {
    checkInstall(this.directory, this.installs, this.clocks, appId, hubId);
    const { position, state } = await this.streams.handle(
      installClockStream(appId, hubId),
      { kind: 'AdvanceInstallClock', appId, hubId, advanceSeconds, now: this.clock.now() },
      context,
    );
    // Answered once this instance issues and checks the install's tokens by the new time; the answer
    // itself is the decided state (committed), even if the read model lags.
    if (position > 0) await this.runner.readModelsReached(position);
    const realTime = this.clock.now();
    return {
      appId,
      hubId,
      offsetSeconds: state.offsetSeconds,
      installTime: realTime + state.offsetSeconds * 1000,
      realTime,
    };
  }
}

@CommandHandler(ResetInstallClock)
export class ResetInstallClockHandler implements ICommandHandler<ResetInstallClock> {
  private readonly streams;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly clocks: InstallClocks,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.streams = streams.forDecider(installClockDecider);
  }

  async execute({ appId, hubId, context }: ResetInstallClock): Promise<void> {
    checkInstall(this.directory, this.installs, this.clocks, appId, hubId, true);
    const { position } = await this.streams.handle(
      installClockStream(appId, hubId),
      { kind: 'ResetInstallClock', appId, hubId, now: this.clock.now() },
      context,
    );
    if (position > 0) await this.runner.readModelsReached(position);
  }
}
