import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { Metrics } from '../../platform/metrics/metrics';
import type { CommandContext } from '../../platform/events/envelope';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Reactor } from '../../platform/projections/projection';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { StorageFaultRetries } from '../../platform/projections/storage-fault-retries';
import { CardsEventType, type MigrationStarted } from '../domain/card-events';
import type { CrmView } from '../domain/card-views';
import { CardsQueries, type MigrationRecord } from './cards.queries';
import { CompleteCardMigration } from './commands/complete-card-migration';
import { MigratePortalCard } from './commands/migrate-portal-card';

export interface MigrationWorkerOptions {
  /** MigratePortalCard commands (one append each) in flight at once: enough for the store's group commit to batch them. */
  concurrency: number;
  /** Accounts read from the read model per page. */
  pageSize: number;
  /** A progress log line every this many migrated accounts. */
  logEvery: number;
  /**
   * Test hook: this process migrates at most this many accounts, then leaves the rest to the
   * next start (a deterministic stand-in for a crash half-way).
   */
  maxPortalsPerProcess?: number;
}

export const CARDS_MIGRATION_WORKER_OPTIONS = Symbol('CARDS_MIGRATION_WORKER_OPTIONS');

export const DEFAULT_MIGRATION_WORKER_OPTIONS: MigrationWorkerOptions = {
  // About two full store groups in flight: fewer, larger commits (each one an fsync).
  concurrency: 256,
  pageSize: 2000,
  logEvery: 10_000,
};

const ACTOR = 'system:cards-migration-worker';
/** How a migration is named in the retry log lines (then its legacy card id). */
const RETRY_NAME_PREFIX = 'cards-migration-of-legacy-card-';

/**
 * The migration process: for every account of a started migration it sends MigratePortalCard, then
 * CompleteCardMigration. It starts a migration from two places only: the checkpointed feed (it is
 * the reactor of cards.MigrationStarted, also one appended by another instance) and the start of
 * the app (every migration the read model shows unfinished). It does not hold the feed while a
 * migration runs: the read model says what is left, so the checkpoint may move past the event.
 *
 * Everything it needs is in the event history: the accounts still to migrate are a read model,
 * paged in hub id order (memory flat in the number of accounts), and each account's part is its
 * own stream appended with `no_stream`, so after a crash the next start simply picks up the
 * pending accounts and none is migrated twice. Many commands are kept in flight so the store
 * commits their appends in large groups.
 */
@Injectable()
export class CardMigrationWorker implements Reactor<MigrationStarted>, OnApplicationBootstrap, OnModuleDestroy {
  readonly name = 'cards-migration-reactor';
  /** Only these: on start the runner then reads them by type instead of replaying the whole history. */
  readonly handles = [CardsEventType.MigrationStarted];
  private readonly logger = new Logger('CardsMigration');
  private readonly running = new Map<string, Promise<void>>();
  private readonly options: MigrationWorkerOptions;
  private stopping = false;
  private migratedHere = 0;
  /** A migration stopped by a storage fault starts again by itself (from the read model) after a backoff. */
  private readonly storageRetries = new StorageFaultRetries(
    (names) => names.forEach((name) => this.ensureRunning(name.slice(RETRY_NAME_PREFIX.length))),
    { log: (m) => this.logger.log(m), error: (m) => this.logger.error(m) },
  );

  constructor(
    private readonly commandBus: CommandBus,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    private readonly metrics: Metrics,
    @Optional() @Inject(CARDS_MIGRATION_WORKER_OPTIONS) options?: Partial<MigrationWorkerOptions>,
  ) {
    this.options = { ...DEFAULT_MIGRATION_WORKER_OPTIONS, ...options };
  }

  handle(event: Recorded<MigrationStarted>): Promise<void> {
    this.ensureRunning(event.data.legacyCardId, event.position);
    return Promise.resolve();
  }

  onApplicationBootstrap(): void {
    // Not awaited: start-up must not wait for the read models to catch up with a long history.
    this.resumeUnfinished().catch((e: unknown) =>
      this.logger.warn(`resume skipped: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  /** Starts the migration of this legacy card unless it runs already; `position` is its MigrationStarted. */
  private ensureRunning(legacyCardId: string, position = 0): void {
    if (this.stopping || this.running.has(legacyCardId)) return;
    const run = this.run(legacyCardId, position)
      .then(() => this.storageRetries.progressed(this.retried(legacyCardId)))
      .catch((error: unknown) => {
        if (!this.stopping && this.storageRetries.retryLater(this.retried(legacyCardId), error)) return;
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error(`migration of legacy card ${legacyCardId} stopped: ${message}; it resumes on the next start`);
      })
      .finally(() => this.running.delete(legacyCardId));
    this.running.set(legacyCardId, run);
  }

  private retried(legacyCardId: string) {
    // Its "position" in the retry log lines: the accounts migrated so far. Only for the log, and
    // this runs while handling a storage fault, when the read model may be failing too: a read
    // that throws here must not lose the retry.
    let position = 0;
    try {
      position = this.queries.migration(legacyCardId)?.migratedPortalCount ?? 0;
    } catch {
      // the log line says 0
    }
    return { name: `${RETRY_NAME_PREFIX}${legacyCardId}`, kind: 'reactor' as const, position };
  }

  /** On start: every migration the history shows unfinished is picked up where it stopped. */
  private async resumeUnfinished(): Promise<void> {
    await this.runner.waitForHead(null);
    for (const m of this.queries.unfinishedMigrations()) {
      this.logger.log(
        `resuming migration of legacy card ${m.legacyCardId}: ${m.remainingPortalCount} of ${m.totalPortalCount} portals remaining`,
      );
      this.ensureRunning(m.legacyCardId);
    }
  }

  /** Resolves once every running migration has stopped or finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  async onModuleDestroy(): Promise<void> {
    // Stop taking new accounts; the appends already in flight finish before the store closes.
    this.stopping = true;
    this.storageRetries.stop();
    await this.idle();
  }

  private budgetLeft(): boolean {
    const max = this.options.maxPortalsPerProcess;
    return max === undefined || this.migratedHere < max;
  }

  private async run(legacyCardId: string, position: number): Promise<void> {
    await this.runner.waitFor(position, null);
    let migration = this.queries.migration(legacyCardId);
    if (!migration || migration.endedAt !== null) return;
    // The worker's events carry the start's correlation and name it as their cause.
    const started = this.queries.migrationStart(legacyCardId);
    const ctx: CommandContext = {
      correlationId: started?.correlationId ?? randomUUID(),
      causationId: started?.eventId ?? null,
      actor: ACTOR,
    };
    const tally = { atStart: migration.migratedPortalCount, here: 0 };
    for (;;) {
      const before = migration.remainingPortalCount;
      await this.migratePendingPortals(migration, ctx, tally);
      if (this.stopping || !this.budgetLeft()) return;
      await this.runner.waitForHead(null);
      migration = this.queries.migration(legacyCardId)!;
      if (migration.remainingPortalCount === 0) break;
      if (migration.remainingPortalCount >= before) {
        throw new Error(`no progress: ${migration.remainingPortalCount} portals still pending`);
      }
    }
    await this.commandBus.execute(new CompleteCardMigration(migration.appId, legacyCardId, ctx));
    this.logger.log(
      `migration of legacy card ${legacyCardId} to app card ${migration.appCardId} completed: ${migration.migratedPortalCount} portals migrated`,
    );
  }

  /** One pass over the pending accounts, with a bounded number of appends in flight. */
  private async migratePendingPortals(migration: MigrationRecord, ctx: CommandContext, tally: Tally): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let failure: unknown = null;
    let after = 0;
    pages: while (!this.stopping) {
      const page = this.queries.pendingPortals(migration.legacyCardId, after, this.options.pageSize);
      if (page.length === 0) break;
      const places = this.queries.legacyCardPlacesOfHubs(migration.legacyCardId, after, page[page.length - 1]!);
      for (const hubId of page) {
        if (this.stopping || !this.budgetLeft() || failure !== null) break pages;
        this.migratedHere += 1;
        const task: Promise<void> = this.migratePortal(migration, hubId, places.get(hubId) ?? [], ctx, tally)
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => inFlight.delete(task));
        inFlight.add(task);
        if (inFlight.size >= this.options.concurrency) await Promise.race(inFlight);
      }
      after = page[page.length - 1]!;
    }
    await Promise.all(inFlight);
    if (failure !== null) throw failure;
  }

  private async migratePortal(
    m: MigrationRecord,
    hubId: number,
    places: Array<{ view: CrmView; position: number }>,
    ctx: CommandContext,
    tally: Tally,
  ): Promise<void> {
    const migrated = await this.commandBus.execute(new MigratePortalCard(m, hubId, places, ctx));
    if (!migrated) return; // migrated before a restart
    this.metrics.migratedPortals.inc();
    tally.here += 1;
    if (tally.here % this.options.logEvery === 0) {
      this.logger.log(
        `legacy card ${m.legacyCardId}: ${tally.atStart + tally.here} of ${m.totalPortalCount} portals migrated`,
      );
    }
  }
}

/** Accounts migrated before this run started, and by this run. */
interface Tally {
  atStart: number;
  here: number;
}
