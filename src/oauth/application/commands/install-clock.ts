import { Inject, Injectable } from '@nestjs/common';
import { Command } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../../directory/directory.queries';
import { CLOCK, type Clock, InstallClocks } from '../../../platform/clock';
import type { SharedHandler } from '../../../platform/commands/command-handlers';
import { EventStreams } from '../../../platform/commands/event-streams';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { answerFromReadModelOr } from '../../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import {
  type AdvanceInstallClock as AdvanceInstallClockShape,
  installClockDecider,
  installClockStream,
  type ResetInstallClock as ResetInstallClockShape,
} from '../../domain/install-clock';
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

/**
 * The commands of one install's clock stream, each the decider's command of the same name
 * (domain/install-clock.ts) without the time the handler adds. Both handled by InstallClockHandler.
 */
export class AdvanceInstallClock extends Command<InstallClockView> implements Omit<AdvanceInstallClockShape, 'now'> {
  readonly type = 'AdvanceInstallClock' as const;
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly advanceSeconds: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** InstallClockReset: the install returns to real time (nothing when it runs on real time already). */
export class ResetInstallClock extends Command<void> implements Omit<ResetInstallClockShape, 'now'> {
  readonly type = 'ResetInstallClock' as const;
  constructor(
    readonly appId: number,
    readonly hubId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export const INSTALL_CLOCK_COMMANDS = [AdvanceInstallClock, ResetInstallClock] as const;
type InstallClockBusCommand = InstanceType<(typeof INSTALL_CLOCK_COMMANDS)[number]>;

/**
 * The one handler of an install's clock stream. The install must exist (a reset also while an
 * uninstalled app still has a clock); an advance answers once this instance issues and checks the
 * install's tokens by the new time (the read model holds it), else from the decided offset.
 */
@Injectable()
export class InstallClockHandler implements SharedHandler<InstallClockBusCommand> {
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

  async execute(command: InstallClockBusCommand): Promise<InstallClockView | undefined> {
    const { appId, hubId, context } = command;
    const reset = command.type === 'ResetInstallClock';
    checkInstall(this.directory, this.installs, this.clocks, appId, hubId, reset);
    const { position, state } = await this.streams.handle(
      installClockStream(appId, hubId),
      { ...command, now: this.clock.now() },
      context,
    );
    if (reset) {
      if (position > 0) await this.runner.readModelsReached(position);
      return undefined;
    }
    return answerFromReadModelOr(
      this.runner,
      position,
      () => installClockView(this.clocks, this.clock, appId, hubId),
      () => {
        const realTime = this.clock.now();
        const offsetSeconds = state.offsetSeconds;
        return { appId, hubId, offsetSeconds, installTime: realTime + offsetSeconds * 1000, realTime };
      },
    );
  }
}
