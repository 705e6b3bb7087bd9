import { join } from 'node:path';
import type { AppConfig } from '../config/config';
import type { Metrics } from '../metrics/metrics';
import { makePrivateDatabaseFile, makePrivateDataDir } from '../security/private-files';
import type { EventStore } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';
import { checkIntegrityAtStart } from './sqlite-integrity';

/** The one place that picks the store: EventStoreDB when a connection string is set, else SQLite in DATA_DIR. */
export function createEventStore(
  config: AppConfig,
  metrics?: Metrics,
  logger?: { warn(message: string): void; error(message: string): void },
): EventStore {
  if (config.eventStoreConnectionString) {
    // Loaded only here: the EventStoreDB client and gRPC are about 7 MiB of heap (and 150 modules)
    // that a service on the embedded SQLite store never uses.
    const { EventStoreDbEventStore } =
      require('./eventstoredb-event-store') as typeof import('./eventstoredb-event-store');
    return new EventStoreDbEventStore(config.eventStoreConnectionString, {
      onSubscriptionError: (error, retryInMs) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (retryInMs === null) logger?.error(`subscription to $all failed for good: ${reason}`);
        else logger?.warn(`subscription to $all dropped (${reason}); resubscribing in ${retryInMs} ms`);
      },
    });
  }
  makePrivateDataDir(config.dataDir);
  const file = join(config.dataDir, 'events.sqlite');
  checkIntegrityAtStart(file);
  makePrivateDatabaseFile(file);
  return new SqliteEventStore(file, {
    // The service is the file's one writer, so streams it has read can be served from memory.
    streamCacheSize: 20_000,
    streamCacheBytes: config.eventCache.streamCacheBytes,
    // ...and the projections read what was just committed from memory.
    liveTailSize: 4096,
    liveTailBytes: config.eventCache.liveTailBytes,
    onCommit: (_appends, events) => {
      metrics?.commits.inc();
      metrics?.appendedEvents.inc(events);
    },
  });
}
