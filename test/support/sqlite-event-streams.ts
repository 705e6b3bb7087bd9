import { CqrsModule } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLOCK, type Clock } from '../../src/platform/clock';
import { EventStreams } from '../../src/platform/commands/event-streams';
import { EVENT_STORE } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';

export interface SqliteEventStreams {
  store: SqliteEventStore;
  streams: EventStreams;
  /** Closes the store and removes its folder. */
  close(): Promise<void>;
}

/**
 * EventStreams over a real SQLite event store in a fresh temporary folder, with the given clock: the
 * write side alone (no projection runs), as the integration tests of deciders on a real store use it.
 */
export async function sqliteEventStreams(prefix: string, clock: Clock): Promise<SqliteEventStreams> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const moduleRef = await Test.createTestingModule({
    imports: [CqrsModule.forRoot()],
    providers: [EventStreams, { provide: EVENT_STORE, useValue: store }, { provide: CLOCK, useValue: clock }],
  }).compile();
  return {
    store,
    streams: moduleRef.get(EventStreams),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
