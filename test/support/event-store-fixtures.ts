import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore, type SqliteEventStoreOptions } from '../../src/platform/event-store/sqlite-event-store';

/** An event with fresh ids, as the command executor would wrap it. */
export const newEvent = (type: string, data: unknown = {}, actor = 'test:store'): NewEvent => ({
  type,
  data,
  metadata: {
    eventId: randomUUID(),
    correlationId: randomUUID(),
    causationId: null,
    actor,
    occurredAt: Date.now(),
  },
});

/** A SQLite event store on a real file in a fresh temp directory, removed by cleanup. */
export function tempSqliteStore(options?: SqliteEventStoreOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'event-store-'));
  const file = join(dir, 'events.db');
  const store = new SqliteEventStore(file, options);
  return {
    store,
    file,
    dir,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
