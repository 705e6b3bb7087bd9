import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { ArchiveFiles } from '../archive/archive-files';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Metrics } from '../metrics/metrics';
import { CLOCK, Clock, MONOTONIC_CLOCK, type MonotonicClock, systemMonotonicClock } from '../clock';
import { EventStreams } from '../commands/event-streams';
import { createEventStore } from '../event-store/create-event-store';
import { EVENT_STORE, EventStore } from '../event-store/event-store.port';
import { Checkpoints } from '../projections/checkpoints';
import { ProjectionRunner } from '../projections/projection-runner';
import { closeReadModelDatabase, openReadModelDatabase, READ_MODEL_DB } from '../projections/read-model-database';
import { flushLogAtShutdown } from './shutdown-log-flush';
import { makePrivateDataDir } from '../security/private-files';
import { Authenticators } from '../http/authentication';
import { DataDirLock } from './data-dir-lock';
import { StartupRefusal } from './startup-refusal';
import { COUNTER_STORE, type CounterStore } from '../rate-limit/counter-store';
import { createCounterStore } from '../rate-limit/create-counter-store';

export interface CoreOptions {
  config: AppConfig;
  clock: Clock;
  /** Lock and window durations; the system's monotonic clock unless a test hands one in. */
  monotonicClock?: MonotonicClock;
  /** Tests may hand in a store; otherwise the config picks one. */
  eventStore?: EventStore;
  /** Tests may hand in a counter store; otherwise the config picks one (memory, or Redis). */
  counterStore?: CounterStore;
  /** Taken before the application is built (DataDirLock.acquireFor); released at shutdown. */
  dataDirLock: DataDirLock;
}

/** Starts projections once every module registered its own; closes everything in order on shutdown. */
@Injectable()
class CoreLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Core');
  constructor(
    private readonly runner: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    private readonly dataDirLock: DataDirLock,
    @Inject(COUNTER_STORE) private readonly counters: CounterStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const checkpoints = new Checkpoints(this.db);
    const identity = await this.holdCheckpointsAgainstStore(checkpoints);
    this.runner.start();
    if (identity === null) {
      // An empty store is known by its first event: recorded once the read models applied one.
      void this.runner
        .waitFor(1, null)
        .then(async () =>
          checkpoints.bindToStore(this.store.kind, await this.store.identity(), Number.MAX_SAFE_INTEGER),
        )
        .catch(() => undefined); // stopped first: bound on the next start
    }
  }

  /**
   * Positions mean something only to the store that issued them, and only up to its head. A store
   * without events beside read models built from a history is an emptied store: refused, as
   * refuseLostEventHistory refuses a lost events.sqlite (rebuilding would wipe every read model).
   */
  private async holdCheckpointsAgainstStore(checkpoints: Checkpoints): Promise<string | null> {
    const identity = await this.store.identity();
    // (Read models of a store of another kind are simply rebuilt: the store in use was changed.)
    if (identity === null && checkpoints.hasApplied() && !checkpoints.boundToAnotherKind(this.store.kind)) {
      throw new StartupRefusal(
        `The ${this.store.kind === 'sqlite' ? 'embedded' : 'EventStoreDB'} event store holds no events, but ${resolve(this.db.name)} was built from an event history: restore the event store from a backup (no read model was changed), or move readmodels.sqlite away to really start with an empty store.`,
      );
    }
    const binding = checkpoints.bindToStore(this.store.kind, identity, await this.store.headPosition());
    if (binding.foreign) {
      this.logger.warn('read-model checkpoints were kept for another event store: rebuilding every read model');
    }
    for (const { name, position } of binding.ahead) {
      this.logger.warn(
        `read model ${name} was checkpointed at position ${position}, past the event store's newest event (an older backup restored, or a lost WAL): rebuilding it from zero`,
      );
    }
    return identity;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
    await this.store.close(); // flushes pending appends first
    closeReadModelDatabase(this.db);
    await this.counters.close();
    this.dataDirLock.release();
    this.logger.log('event store and read models closed');
    await flushLogAtShutdown();
  }
}

@Global()
@Module({})
export class CoreModule {
  static forRoot(options: CoreOptions): DynamicModule {
    const { config } = options;
    const metrics = new Metrics();
    return {
      module: CoreModule,
      // The CommandBus (global): feature modules' @CommandHandlers bind to it. Nothing is published on its EventBus.
      imports: [CqrsModule.forRoot()],
      providers: [
        EventStreams,
        { provide: APP_CONFIG, useValue: config },
        { provide: CLOCK, useValue: options.clock },
        { provide: MONOTONIC_CLOCK, useValue: options.monotonicClock ?? systemMonotonicClock },
        { provide: Metrics, useValue: metrics },
        { provide: DataDirLock, useValue: options.dataDirLock },
        {
          provide: EVENT_STORE,
          useFactory: () => options.eventStore ?? createEventStore(config, metrics, new Logger('EventStore')),
        },
        {
          provide: COUNTER_STORE,
          useFactory: () => options.counterStore ?? createCounterStore(config, metrics, new Logger('Counters')),
        },
        {
          provide: READ_MODEL_DB,
          useFactory: () => {
            makePrivateDataDir(config.dataDir);
            const logger = new Logger('Projections');
            return openReadModelDatabase(join(config.dataDir, 'readmodels.sqlite'), { warn: (m) => logger.warn(m) });
          },
        },
        {
          provide: ProjectionRunner,
          inject: [EVENT_STORE, READ_MODEL_DB],
          useFactory: (store: EventStore, db: Database.Database) => {
            const logger = new Logger('Projections');
            return new ProjectionRunner(store, db, { log: (m) => logger.log(m), error: (m) => logger.error(m) });
          },
        },
        Authenticators,
        { provide: ArchiveFiles, useFactory: () => new ArchiveFiles(config.dataDir) },
        CoreLifecycle,
      ],
      exports: [
        APP_CONFIG,
        CLOCK,
        MONOTONIC_CLOCK,
        COUNTER_STORE,
        Metrics,
        EVENT_STORE,
        READ_MODEL_DB,
        ProjectionRunner,
        EventStreams,
        Authenticators,
        ArchiveFiles,
      ],
    };
  }
}
