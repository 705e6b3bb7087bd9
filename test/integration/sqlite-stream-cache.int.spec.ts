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

  it('gives the metadata of its own appends exactly as a read of the file gives it, without reading the text', async () => {
    const t = tempStore(4, 100);
    const base = () => newEvent('t.M').metadata;
    const odd = (metadata: Record<string, unknown>) => ({ ...newEvent('t.M'), metadata: { ...base(), ...metadata } });
    const events = [
      newEvent('t.M'),
      odd({ correlationId: 'req-1', causationId: '~x', actor: '~~user' }),
      odd({ eventId: 'AAAAAAAA-0000-4000-8000-000000000000', causationId: base().eventId }),
      odd({ eventId: 'not-a-uuid', occurredAt: 1.5 }),
      odd({ occurredAt: -0 }),
      odd({ extra: 'dropped by the file' }),
    ] as Parameters<typeof t.store.append>[1];
    const file = () => new SqliteEventStore(t.file); // no tail, no cache: reads the rows' text
    try {
      for (const [i, e] of events.entries()) await t.store.append(`meta-${i}`, [e], 'no_stream');
      await t.store.readStream('meta-0'); // cached: later appends to it go to the stream cache too
      await t.store.append('meta-0', [newEvent('t.M')], 0);
      const fromFile = file();
      try {
        expect(await t.store.readAll({ after: 0, limit: 100 })).toEqual(
          await fromFile.readAll({ after: 0, limit: 100 }),
        );
        expect(await t.store.readStream('meta-0')).toEqual(await fromFile.readStream('meta-0'));
        const [viaTail, viaFile] = [
          await t.store.readAll({ after: 4, limit: 1 }),
          await fromFile.readAll({ after: 4, limit: 1 }),
        ];
        expect(Object.is(viaTail[0]!.metadata.occurredAt, viaFile[0]!.metadata.occurredAt)).toBe(true); // -0 came back 0
      } finally {
        await fromFile.close();
      }
    } finally {
      await t.cleanup();
    }
  });

  it("shares the newest commit's events between readers of the feed, frozen, and lets them go at the next commit", async () => {
    const t = tempStore(0, 100);
    try {
      await t.store.append('s', [newEvent('t.A', { list: [1] }), newEvent('t.A', { n: 2 })], 'no_stream');
      const [first, second] = [
        await t.store.readAll({ after: 0, limit: 10 }),
        await t.store.readAll({ after: 1, limit: 10 }),
      ];
      expect(second[0]).toBe(first[1]); // parsed once for both readers
      expect(first).not.toBe(second);
      expect(Object.isFrozen(first[0]!.metadata)).toBe(true);
      expect(() => (first[0]!.data as { list: number[] }).list.push(2)).toThrow(TypeError);
      await t.store.append('s', [newEvent('t.A', { n: 3 })], 1);
      const [older, newest] = [
        await t.store.readAll({ after: 0, limit: 10 }),
        await t.store.readAll({ after: 0, limit: 10 }),
      ];
      expect(older[0]).not.toBe(first[0]); // an earlier commit's events are parsed per read again
      expect(older[0]).toEqual(first[0]);
      expect(newest[2]).toBe(older[2]);
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

describe('SqliteEventStore caches are bounded by bytes (issue 14, finding 1)', () => {
  const MiB = 1024 * 1024;
  const big = (n: number) => newEvent('t.Big', { n, options: 'o'.repeat(60_000) });

  it('the stream cache keeps at most its bytes: big streams push the least recently used out', async () => {
    const t = tempSqliteStore({ streamCacheSize: 1000, streamCacheBytes: MiB });
    try {
      for (let i = 0; i < 20; i++) {
        await t.store.append(`big-${i}`, [big(i)], 'no_stream');
        await t.store.readStream(`big-${i}`);
      }
      expect(t.store.cacheBytes().streamCache).toBeGreaterThan(0);
      expect(t.store.cacheBytes().streamCache).toBeLessThanOrEqual(MiB);
      // 'big-0' is no longer in memory (20 streams of ~120 KB do not fit in 1 MiB, whatever the
      // count capacity): an append it misses is seen on the next read.
      const other = new SqliteEventStore(t.file);
      try {
        await other.append('big-0', [newEvent('by-other')], 0);
      } finally {
        await other.close();
      }
      expect((await t.store.readStream('big-0')).map((e) => e.type)).toEqual(['t.Big', 'by-other']);
      // The most recent one still is: its reads are served from memory.
      expect((await t.store.readStream('big-19')).map((e) => e.type)).toEqual(['t.Big']);
    } finally {
      await t.cleanup();
    }
  });

  it('a stream larger than a quarter of the bytes is not kept, and appends that outgrow it drop it', async () => {
    const t = tempSqliteStore({ streamCacheSize: 1000, streamCacheBytes: 400_000 });
    try {
      await t.store.append('huge', [big(0)], 'no_stream');
      await t.store.readStream('huge');
      expect(t.store.cacheBytes().streamCache).toBe(0);
      await t.store.append('grows', [newEvent('small')], 'no_stream');
      await t.store.readStream('grows');
      expect(t.store.cacheBytes().streamCache).toBeGreaterThan(0);
      await t.store.append('grows', [big(1)], 0);
      expect(t.store.cacheBytes().streamCache).toBe(0);
      expect((await t.store.readStream('grows')).map((e) => e.type)).toEqual(['small', 't.Big']);
    } finally {
      await t.cleanup();
    }
  });

  it('the live tail keeps at most its bytes and still answers the feed exactly as the file does', async () => {
    const t = tempSqliteStore({ liveTailSize: 4096, liveTailBytes: MiB });
    const file = new SqliteEventStore(t.file);
    try {
      for (let i = 0; i < 30; i++) {
        await t.store.append(`tail-${i}`, [big(i), newEvent('t.Small', { i })], 'no_stream');
        expect(t.store.cacheBytes().liveTail).toBeLessThanOrEqual(MiB);
      }
      expect(t.store.cacheBytes().liveTail).toBeGreaterThan(0);
      const head = await file.headPosition();
      for (let after = 0; after <= head; after += 7) {
        expect(await t.store.readAll({ after, limit: 5 })).toEqual(await file.readAll({ after, limit: 5 }));
      }
    } finally {
      await file.close();
      await t.cleanup();
    }
  });
});
