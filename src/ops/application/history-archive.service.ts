import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { CLOCK, type Clock, MONOTONIC_CLOCK, type MonotonicClock, steadyWallTime } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import { ArchiveFiles, type ArchiveCrashPoint } from '../../platform/archive/archive-files';
import { HistoryArchiver, type BatchOutcome } from '../../platform/archive/history-archiver';
import { retentionRules } from '../../platform/archive/retention-rules';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { historyArchiveDecider } from '../domain/history-archive.decider';
import { historyArchiveStream } from '../domain/ops-events';
import { RecordArchivedHistory } from './commands/record-archived-history';

/**
 * Runs the archiver in the background: every ARCHIVE_INTERVAL_MS, batches until caught up, each
 * batch yielding to the event loop (requests go first). The store removes a batch's events its own
 * way when the batch is recorded (EventStore.retention; docs/retention.md).
 */
@Injectable()
export class HistoryArchiveService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Archive');
  readonly archiver: HistoryArchiver;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  /** Test hook (kill -9 tests): called after each durable step of a batch. */
  crashPoint?: (step: ArchiveCrashPoint) => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) clock: Clock,
    @Inject(MONOTONIC_CLOCK) monotonic: MonotonicClock,
    @Inject(EVENT_STORE) store: EventStore,
    files: ArchiveFiles,
    runner: ProjectionRunner,
    streams: EventStreams,
    private readonly commandBus: CommandBus,
  ) {
    const context = () => ({ correlationId: randomUUID(), actor: 'system:archiver' });
    this.archiver = new HistoryArchiver({
      store,
      files,
      rules: retentionRules,
      retentionDays: config.archive.retentionDays,
      batchEvents: config.archive.batchEvents,
      // A wall clock set ahead must not archive a stream whose token has not really expired (its
      // revocation would then find no stream): the cutoff moves only as fast as elapsed time.
      now: steadyWallTime(clock, monotonic),
      appliedPosition: () => Math.min(...runner.status().map((s) => s.position)),
      handledTypes: () => runner.handledTypes(),
      recordedSegments: async () => {
        const recorded = new Set<string>();
        for (const file of Object.keys(files.manifest().files)) {
          for (const key of (await streams.load(historyArchiveStream(file), historyArchiveDecider)).state.recorded) {
            recorded.add(key);
          }
        }
        return recorded;
      },
      record: async (batch) => {
        await this.commandBus.execute(
          new RecordArchivedHistory(batch, config.archive.retentionDays, clock.now(), context()),
        );
      },
      crashPoint: (step) => this.crashPoint?.(step),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.archiver.enabled || this.config.archive.intervalMs === 0) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runUntilCaughtUp()
        .catch((error: unknown) =>
          this.logger.error(`archiving failed: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.config.archive.intervalMs);
    this.timer.unref();
  }

  /** Batches until nothing more is due now (or shut down); returns the events archived. */
  async runUntilCaughtUp(): Promise<number> {
    let total = 0;
    let outcome: BatchOutcome;
    do {
      outcome = await this.runOnce();
      total += outcome.archived;
      // Between batches, whatever requests queued up run first.
      await new Promise((resolve) => setImmediate(resolve));
    } while (!this.stopped && outcome.archived > 0 && !outcome.caughtUp);
    if (total > 0) this.logger.log(`archived ${total} events`);
    return total;
  }

  /** One batch (reconciling first after a start). */
  runOnce(): Promise<BatchOutcome> {
    return this.archiver.runBatch();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
