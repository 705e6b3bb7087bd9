import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { newEvent, tempSqliteStore } from '../support/event-store-fixtures';

const tempStore = tempSqliteStore;

describeEventStoreContract('SqliteEventStore (temp file)', () => Promise.resolve(tempStore()));

describe('SqliteEventStore specifics', () => {
  it('groups concurrent appends into fewer transactions than appends', async () => {
    const commits: Array<{ appends: number; events: number }> = [];
    const { store, cleanup } = tempStore({ onCommit: (appends, events) => commits.push({ appends, events }) });
    try {
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => store.append(`group-${i}`, [newEvent('t.Grouped', { i })], 'no_stream')),
      );
      expect(results.every((r) => r.nextExpectedRevision === 0)).toBe(true);
      expect(new Set(results.map((r) => r.position)).size).toBe(100);
      expect(commits.length).toBeLessThan(100);
      expect(commits.reduce((n, c) => n + c.appends, 0)).toBe(100);
      expect(commits.reduce((n, c) => n + c.events, 0)).toBe(100);
    } finally {
      await cleanup();
    }
  });

  it('keeps acknowledged appends across close and reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'event-store-'));
    const file = join(dir, 'events.db');
    try {
      const first = new SqliteEventStore(file);
      const written = [newEvent('t.A', { n: 1 }), newEvent('t.B', { n: 2 })];
      const acknowledged = await Promise.all([
        first.append('durable-1', written.slice(0, 1), 'no_stream'),
        first.append('durable-2', written.slice(1), 'no_stream'),
      ]);
      await first.close();

      const reopened = new SqliteEventStore(file);
      try {
        const all = await reopened.readAll({ after: 0, limit: 10 });
        expect(all.map((e) => e.metadata)).toEqual(written.map((e) => e.metadata));
        expect(all.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
        expect(all.map((e) => e.position)).toEqual(acknowledged.map((r) => r.position));
        expect(await reopened.headPosition()).toBe(acknowledged[1]!.position);
        // The reopened store carries on from the stored revision.
        expect((await reopened.append('durable-1', [newEvent('t.C')], 0)).nextExpectedRevision).toBe(1);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects only the failing append of a group; the others commit', async () => {
    const commits: number[] = [];
    const { store, cleanup } = tempStore({ onCommit: (appends) => commits.push(appends) });
    try {
      await store.append('group-existing', [newEvent('t.A')], 'no_stream');
      commits.length = 0;
      // Issued in one turn of the event loop, so they share one transaction.
      const outcomes = await Promise.allSettled([
        store.append('group-ok-1', [newEvent('t.A')], 'no_stream'),
        store.append('group-existing', [newEvent('t.B')], 'no_stream'),
        store.append('group-ok-2', [newEvent('t.A'), newEvent('t.B')], 'no_stream'),
      ]);
      expect(commits).toEqual([3]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
      expect(await store.readStream('group-ok-1')).toHaveLength(1);
      expect(await store.readStream('group-existing')).toHaveLength(1);
      expect(await store.readStream('group-ok-2')).toHaveLength(2);
    } finally {
      await cleanup();
    }
  });

  it('rejects an append that fails part-way without hurting the rest of its group', async () => {
    const { store, cleanup } = tempStore();
    try {
      const outcomes = await Promise.allSettled([
        store.append('partial-ok', [newEvent('t.A')], 'no_stream'),
        // A BigInt cannot be serialised, so the second event of this append throws mid-write.
        store.append('partial-bad', [newEvent('t.A'), newEvent('t.B', { n: 1n })], 'no_stream'),
        store.append('partial-ok-2', [newEvent('t.A')], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await store.readStream('partial-ok')).toHaveLength(1);
      expect(await store.readStream('partial-ok-2')).toHaveLength(1);
    } finally {
      await cleanup();
    }
  });

  // Each multi-event append of a group runs in its own SAVEPOINT on the writer thread, so a
  // failure part-way (here: a trigger refuses the second event's insert) leaves nothing of it
  // behind, and the rest of the group commits.
  it('rolls back an append whose second event fails in the database, and only that append', async () => {
    const { store, file, cleanup } = tempStore();
    try {
      await store.append('savepoint-owner', [newEvent('t.Taken')], 'no_stream');
      const other = new Database(file);
      other.exec(`CREATE TRIGGER refuse_second BEFORE INSERT ON event_log
                  WHEN NEW.stream_id = 'savepoint-bad' AND NEW.revision = 1
                  BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
      other.close();
      const outcomes = await Promise.allSettled([
        store.append('savepoint-ok', [newEvent('t.A')], 'no_stream'),
        store.append('savepoint-bad', [newEvent('t.A'), newEvent('t.B')], 'no_stream'),
        store.append('savepoint-ok-2', [newEvent('t.A'), newEvent('t.B')], 'no_stream'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/refused by the test/);
      expect(await store.readStream('savepoint-bad')).toEqual([]);
      expect(await store.readStream('savepoint-ok-2')).toHaveLength(2);
      const all = await store.readAll({ after: 0, limit: 100 });
      expect(all.map((e) => e.streamId)).toEqual([
        'savepoint-owner',
        'savepoint-ok',
        'savepoint-ok-2',
        'savepoint-ok-2',
      ]);
    } finally {
      await cleanup();
    }
  });

  it('fails every later append and the readiness ping once its writer thread is gone', async () => {
    const { store, cleanup } = tempStore();
    try {
      await store.append('before-death', [newEvent('t.A')], 'no_stream');
      await (store as unknown as { writer: { terminate(): Promise<number> } }).writer.terminate();
      await expect(store.append('after-death', [newEvent('t.A')], 'no_stream')).rejects.toThrow(/writer thread/);
      await expect(store.ping()).rejects.toThrow(/writer thread/);
      // Reads still answer from what was committed.
      expect(await store.readStream('before-death')).toHaveLength(1);
    } finally {
      await cleanup();
    }
  });

  // An event that cannot be serialised is refused before anything is sent to the writer.
  it('writes nothing of an append that fails part-way', async () => {
    const { store, cleanup } = tempStore();
    try {
      await expect(
        store.append('atomic-bad', [newEvent('t.A'), newEvent('t.B', { n: 1n })], 'no_stream'),
      ).rejects.toBeDefined();
      expect(await store.readStream('atomic-bad')).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});

describe('SqliteEventStore identity', () => {
  it('stays the same store after its first event is archived out of the live store', async () => {
    const { store, cleanup } = tempStore();
    try {
      expect(await store.identity()).toBeNull();
      const first = newEvent('t.Old', { n: 1 });
      const { position } = await store.append('old-stream', [first], 'no_stream');
      await store.append('kept-stream', [newEvent('t.Kept', { n: 2 })], 'no_stream');
      const identity = await store.identity();
      expect(identity).toBe(`sqlite:${first.metadata.eventId}`);
      await store.appendAndPurge('ops-archive', [newEvent('t.Archived', { n: 3 })], 'any', [
        { position, eventId: first.metadata.eventId, streamId: 'old-stream' },
      ]);
      expect(await store.readStream('old-stream')).toEqual([]);
      expect(await store.identity()).toBe(identity);
    } finally {
      await cleanup();
    }
  });
});
