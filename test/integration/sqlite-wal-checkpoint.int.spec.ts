import { statSync } from 'node:fs';
import { sqliteCheckpointer, type CheckpointOutcome } from '../../src/platform/event-store/sqlite-checkpointer';
import { newEvent, tempSqliteStore } from '../support/event-store-fixtures';

const PAGE = 4096;
const walBytes = (file: string) => statSync(`${file}-wal`).size;

describe('SqliteEventStore WAL checkpoints', () => {
  it('checkpoints on its own thread, not in the commits, and keeps the WAL file bounded', async () => {
    const outcomes: CheckpointOutcome[] = [];
    const boundPages = 256;
    const { store, file, cleanup } = tempSqliteStore({
      walCheckpoint: { everyPages: 64, boundPages, onCheckpoint: (o) => outcomes.push(o) },
    });
    try {
      let largestWal = 0;
      // 80 groups of 20 appends of about 1,500 bytes: several thousand pages through the WAL.
      for (let round = 0; round < 80; round += 1) {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.append(`wal-${round}-${i}`, [newEvent('t.Filler', { text: 'x'.repeat(1500) })], 'no_stream'),
          ),
        );
        largestWal = Math.max(largestWal, walBytes(file));
      }
      await store.checkpointsSettled();
      expect(outcomes.length).toBeGreaterThan(10);
      // The WAL started over (a checkpoint found fewer frames than the one before) more than once.
      expect(outcomes.filter((o, i) => i > 0 && o.log < outcomes[i - 1]!.log).length).toBeGreaterThan(1);
      // The events went into the database file (checkpointed), far more than the WAL ever held...
      expect(statSync(file).size).toBeGreaterThan(2 * boundPages * PAGE);
      // ...which stayed within its bound, give or take the commits made during a checkpoint
      // (SQLite's own checkpoint in the commit would have let it reach 1,000 pages).
      expect(largestWal).toBeLessThan(2 * boundPages * PAGE);
      expect((await store.readAll({ after: 0, limit: 5000 })).length).toBe(1600);
    } finally {
      await cleanup();
    }
  });
});

describe('SqliteEventStore commits', () => {
  it('never checkpoint the WAL themselves (SQLite would at 1,000 pages)', async () => {
    const outcomes: CheckpointOutcome[] = [];
    const { store, file, cleanup } = tempSqliteStore({
      // No checkpoint asked for in this test: only one run by a commit could fold the WAL.
      walCheckpoint: { everyPages: 1e9, boundPages: 1e9, onCheckpoint: (o) => outcomes.push(o) },
    });
    try {
      for (let round = 0; round < 100; round += 1) {
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.append(`big-${round}-${i}`, [newEvent('t.Filler', { text: 'z'.repeat(3000) })], 'no_stream'),
          ),
        );
      }
      expect(outcomes).toEqual([]);
      expect(walBytes(file)).toBeGreaterThan(1500 * PAGE);
    } finally {
      await cleanup();
    }
  });
});

describe('sqliteCheckpointer', () => {
  it('copies the WAL into the database file without waiting for the writer', async () => {
    const { file, cleanup, store } = tempSqliteStore({ walCheckpoint: { everyPages: 1_000_000 } });
    const checkpointer = sqliteCheckpointer(file, require.resolve('better-sqlite3'));
    try {
      await store.append('small', [newEvent('t.A')], 'no_stream');
      const outcome = checkpointer.checkpoint();
      expect(outcome.log).toBeGreaterThan(0);
      expect(outcome).toEqual({ busy: 0, log: outcome.log, checkpointed: outcome.log });
    } finally {
      checkpointer.close();
      await cleanup();
    }
  });
});
