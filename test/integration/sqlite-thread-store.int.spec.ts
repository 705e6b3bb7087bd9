import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import { SqliteThreadStore } from '../../src/platform/event-store/sqlite-thread-store';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { newEvent, tempSqliteStore } from '../support/event-store-fixtures';

/**
 * Appends from another thread through a port to the embedded store's one writer thread (the
 * webhooks' delivery thread appends its attempts so): committed in the same order as the store's
 * own appends, checked against their expected revisions, and told to the store, whose live tail,
 * cached streams, feeds and commit listeners have them as they have its own. The port is used here
 * from the test's thread: a MessagePort behaves the same from any thread.
 */
/** What `read` gives once `holds` says so (read once per turn of the event loop), at most 5 s. */
async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (holds(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('SqliteThreadStore', () => {
  const open = (liveTailSize = 64) => {
    const t = tempSqliteStore({ liveTailSize, streamCacheSize: 16 });
    const other = new SqliteThreadStore(t.file, t.store.openWriterPort());
    return {
      ...t,
      other,
      cleanup: async () => {
        other.close();
        await t.cleanup();
      },
    };
  };

  it('appends through the writer: revisions checked, positions in commit order with the store’s own', async () => {
    const t = open();
    try {
      const [mine, theirs, mineAgain] = await Promise.all([
        t.store.append('own', [newEvent('t.Own', { n: 1 })], 'no_stream'),
        t.other.append('side', [newEvent('t.Side', { n: 2 }), newEvent('t.Side', { n: 3 })], 'no_stream'),
        t.store.append('own', [newEvent('t.Own', { n: 4 })], 0),
      ]);
      // The other thread's append is answered once committed; the store has it when the writer's
      // notice arrives (on its own channel, so possibly a moment later), never out of order.
      const all = await eventually(
        () => t.store.readAll({ after: 0, limit: 10 }),
        (events) => events.length === 4,
      );
      expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((a, b) => a - b));
      expect(all.map((e) => [e.streamId, e.revision, e.data])).toEqual(
        expect.arrayContaining([
          ['own', 0, { n: 1 }],
          ['side', 0, { n: 2 }],
          ['side', 1, { n: 3 }],
          ['own', 1, { n: 4 }],
        ]),
      );
      expect(theirs.nextExpectedRevision).toBe(1);
      expect(all.find((e) => e.streamId === 'side' && e.revision === 1)!.position).toBe(theirs.position);
      expect(mineAgain.position).toBeGreaterThan(mine.position);
      await expect(t.other.append('side', [newEvent('t.Side')], 0)).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(t.other.append('own', [newEvent('t.Side')], 'no_stream')).rejects.toMatchObject({
        actual: 1,
      });
      expect((await t.other.readStream('side')).map((e) => e.data)).toEqual([{ n: 2 }, { n: 3 }]);
    } finally {
      await t.cleanup();
    }
  });

  it('re-sending stored events answers with the original result (an append retried after a lost answer)', async () => {
    const t = open();
    try {
      const event = newEvent('t.Side', { once: true });
      const first = await t.other.append('retry', [event], 'no_stream');
      const again = await t.other.append('retry', [event], 'no_stream');
      expect(again).toEqual(first);
      expect(await t.store.readStream('retry')).toHaveLength(1);
    } finally {
      await t.cleanup();
    }
  });

  it('the store has what another thread committed: live tail, cached streams, subscriptions, listeners', async () => {
    const t = open();
    const commits: number[] = [];
    const stop = t.store.onCommitted(() => commits.push(commits.length));
    const subscription = t.store.subscribeToAll(0);
    const iterator = subscription[Symbol.asyncIterator]();
    try {
      await t.store.append('cached', [newEvent('t.Own', { n: 1 })], 'no_stream');
      expect(await t.store.readStream('cached')).toHaveLength(1); // now in the stream cache
      const seen: RecordedEvent[] = [...((await iterator.next()).value as RecordedEvent[])];
      const tailBefore = t.store.cacheBytes().liveTail;
      const listened = commits.length;

      const next = iterator.next(); // waits for the next commit, whoever makes it
      const { position } = await t.other.append('cached', [newEvent('t.Side', { n: 2 })], 0);
      seen.push(...((await next).value as RecordedEvent[]));
      expect(seen.map((e) => [e.type, e.revision])).toEqual([
        ['t.Own', 0],
        ['t.Side', 1],
      ]);
      expect(seen[1]!.position).toBe(position);
      expect(commits.length).toBe(listened + 1);
      // Kept in memory as the store's own commits are, and the cached stream extended, not stale.
      expect(t.store.cacheBytes().liveTail).toBeGreaterThan(tailBefore);
      expect((await t.store.readStream('cached')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(await t.store.readAll({ after: 0, limit: 10 })).toEqual(await t.other.readAll({ after: 0, limit: 10 }));
    } finally {
      subscription.close();
      stop();
      await t.cleanup();
    }
  });

  it('its own subscriptions read on after its append, without waiting for the store’s thread', async () => {
    const t = open();
    const subscription = t.other.subscribeToAll(0);
    const iterator = subscription[Symbol.asyncIterator]();
    try {
      const next = iterator.next();
      await t.other.append('side', [newEvent('t.Side')], 'no_stream');
      expect(((await next).value as RecordedEvent[]).map((e) => e.type)).toEqual(['t.Side']);
    } finally {
      subscription.close();
      await t.cleanup();
    }
  });

  it('refuses data JSON cannot hold before sending anything, and fails once the store closed', async () => {
    const t = open();
    try {
      await expect(t.other.append('bad', [newEvent('t.Side', { n: 1n })], 'no_stream')).rejects.toThrow(/BigInt/);
      expect(await t.store.headPosition()).toBe(0);
      await t.store.close();
      await expect(t.other.append('late', [newEvent('t.Side')], 'no_stream')).rejects.toThrow(
        /closed|writer thread is gone/,
      );
    } finally {
      await t.cleanup();
    }
  });
});
