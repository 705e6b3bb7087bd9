import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { newEvent, tempSqliteStore } from '../support/event-store-fixtures';

const tempStore = (streamCacheSize: number, liveTailSize = 0) => tempSqliteStore({ streamCacheSize, liveTailSize });

// The cache and the live tail must not change a single observable behaviour of the store (a tail of
// 3 is trimmed all the time, so reads cross from memory to the file often).
describeEventStoreContract('SqliteEventStore with a stream cache and a live tail', () =>
  Promise.resolve(tempStore(4, 3)),
);

describe('SqliteEventStore live tail', () => {
  it('answers reads of the whole feed from memory exactly as the file does, across trims', async () => {
    const t = tempStore(0, 5);
    const other = () => new SqliteEventStore(t.file); // no tail: reads the file
    try {
      // Written before the store opened: only the file has these.
      const before = other();
      await before.append('old', [newEvent('t.Old', { n: 0 }), newEvent('t.Old', { n: 1 })], 'no_stream');
      await before.close();
      const reopened = new SqliteEventStore(t.file, { liveTailSize: 5 });
      try {
        const appends = Array.from({ length: 23 }, (_, i) =>
          reopened.append(`live-${i % 4}`, [newEvent('t.Live', { i, gone: undefined })], 'any'),
        );
        appends.push(
          reopened.append('multi', [newEvent('t.M'), newEvent('t.M', { big: 'x'.repeat(500) })], 'no_stream'),
        );
        await Promise.all(appends);
        // A replay and a conflict add nothing.
        await expect(reopened.append('multi', [newEvent('t.M')], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyError);
        const file = other();
        try {
          const head = await file.headPosition();
          for (let after = 0; after <= head; after++) {
            for (const limit of [1, 3, 100]) {
              expect([after, limit, await reopened.readAll({ after, limit })]).toEqual([
                after,
                limit,
                await file.readAll({ after, limit }),
              ]);
            }
          }
        } finally {
          await file.close();
        }
      } finally {
        await reopened.close();
      }
    } finally {
      await t.cleanup();
    }
  });
});

describe('SqliteEventStore stream cache', () => {
  it('serves a read stream with the events appended after it, exactly as the file holds them', async () => {
    const t = tempStore(8);
    try {
      await t.store.append('s-1', [newEvent('a', { n: 1, skip: undefined })], 'no_stream');
      expect(await t.store.readStream('s-1')).toHaveLength(1); // now cached
      await t.store.append('s-1', [newEvent('b', { n: 2, gone: undefined })], 0);
      const cached = await t.store.readStream('s-1');
      const fresh = new SqliteEventStore(t.file);
      try {
        expect(cached).toEqual(await fresh.readStream('s-1'));
        expect(cached.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
        expect(await t.store.readStream('s-1', 1)).toEqual(await fresh.readStream('s-1', 1));
      } finally {
        await fresh.close();
      }
    } finally {
      await t.cleanup();
    }
  });

  it('hands out frozen events and a fresh array each time', async () => {
    const t = tempStore(8);
    try {
      await t.store.append('s-2', [newEvent('a', { list: [1] })], 'no_stream');
      const first = await t.store.readStream('s-2');
      first.pop();
      const second = await t.store.readStream('s-2');
      expect(second).toHaveLength(1);
      expect(Object.isFrozen(second[0]!.data)).toBe(true);
      expect(() => ((second[0]!.data as { list: number[] }).list as number[]).push(2)).toThrow(TypeError);
    } finally {
      await t.cleanup();
    }
  });

  it('keeps the expected-revision check on a cached stream', async () => {
    const t = tempStore(8);
    try {
      await t.store.append('s-3', [newEvent('a')], 'no_stream');
      await t.store.readStream('s-3');
      await t.store.append('s-3', [newEvent('b')], 0);
      await expect(t.store.append('s-3', [newEvent('c')], 0)).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await t.store.readStream('s-3')).map((e) => e.type)).toEqual(['a', 'b']);
    } finally {
      await t.cleanup();
    }
  });

  it('evicts the least recently used stream beyond its capacity, which then reads from the file', async () => {
    const t = tempStore(2);
    try {
      for (const id of ['x', 'y', 'z']) {
        await t.store.append(id, [newEvent('a')], 'no_stream');
        await t.store.readStream(id);
      }
      // 'x' was evicted: an append it misses would be invisible if it were still cached.
      const other = new SqliteEventStore(t.file);
      try {
        await other.append('x', [newEvent('by-other')], 0);
      } finally {
        await other.close();
      }
      expect((await t.store.readStream('x')).map((e) => e.type)).toEqual(['a', 'by-other']);
      expect((await t.store.readStream('z')).map((e) => e.type)).toEqual(['a']);
    } finally {
      await t.cleanup();
    }
  });
});
