import Database from 'better-sqlite3';
import { AuditIndex, INDEX_PROBE_BUDGET } from '../../src/console/application/audit-index';
import { AuditTrail, type AuditFilter, SCAN_BUDGET } from '../../src/console/application/audit-trail';
import { AuditIndexProjection } from '../../src/console/projections/audit-index.projection';
import type { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { Recorded } from '../../src/platform/events/event-type-registry';
import type { EventStore, ReadBackwardOptions } from '../../src/platform/event-store/event-store.port';
import type { RecordedEvent } from '../../src/platform/events/envelope';

/** A feed of `count` events; every `every`-th concerns account 7 (data.hubId), the rest account 1. */
function feed(
  count: number,
  every: number,
): { store: EventStore; reads: ReadBackwardOptions[]; lookups: number[][]; events: RecordedEvent[] } {
  const events: RecordedEvent[] = Array.from({ length: count }, (_, i) => ({
    position: i + 1,
    streamId: `s-${i % 3}`,
    revision: Math.floor(i / 3),
    type: i % 2 === 0 ? 'test.Even' : 'test.Odd',
    data: { hubId: (i + 1) % every === 0 ? 7 : 1, passwordHash: 'scrypt$secret' },
    metadata: { eventId: `e${i}`, correlationId: `c${i % 5}`, causationId: null, actor: 'admin', occurredAt: i },
  }));
  const reads: ReadBackwardOptions[] = [];
  const lookups: number[][] = [];
  const store = {
    kind: 'sqlite',
    headPosition: () => Promise.resolve(events.length),
    readAt: (positions: number[]) => {
      lookups.push(positions);
      return Promise.resolve(positions.map((p) => events[p - 1]).filter((e) => e !== undefined));
    },
    readBackward: (o: ReadBackwardOptions) => {
      reads.push(o);
      return Promise.resolve(
        events
          .filter(
            (e) =>
              e.position < o.before && (!o.type || e.type === o.type) && (!o.streamId || e.streamId === o.streamId),
          )
          .reverse()
          .slice(0, o.limit),
      );
    },
  } as unknown as EventStore;
  return { store, reads, lookups, events };
}

const runner = { readModelsReached: () => Promise.resolve(true) } as unknown as ProjectionRunner;

/** The trail over a store without readAt (every filter scans) and an empty index. */
function scanningTrail(store: EventStore): AuditTrail {
  const { readAt: _readAt, ...withoutReadAt } = store as EventStore & { readAt?: unknown };
  const db = new Database(':memory:');
  new AuditIndexProjection().setup(db);
  return new AuditTrail(withoutReadAt as EventStore, new AuditIndex(db), runner);
}

/** The trail with its account/app index built by the projection over the whole feed. */
function indexedTrail(store: EventStore, events: RecordedEvent[]): AuditTrail {
  const db = new Database(':memory:');
  const projection = new AuditIndexProjection();
  projection.setup(db);
  for (const e of events) projection.apply(e as Recorded<never>, db);
  return new AuditTrail(store, new AuditIndex(db), runner);
}

describe('the console audit trail', () => {
  it('pages newest first by position, `older` continuing where the page ended, credential hashes left out', async () => {
    const { store } = feed(120, 1);
    const trail = scanningTrail(store);
    const first = await trail.page({});
    expect(first.events.map((e) => e.position)).toEqual(Array.from({ length: 50 }, (_, i) => 120 - i));
    expect(first.older).toBe(71);
    expect(first.events[0]!.data).not.toHaveProperty('passwordHash');
    const third = await trail.page({}, 21);
    expect(third.events.map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
    expect(third.older).toBeNull();
  });

  it('filters by type and stream through the store, and by account and correlation id on the events read', async () => {
    const { store } = feed(200, 10);
    const trail = scanningTrail(store);
    expect(
      (await trail.page({ type: 'test.Odd', stream: 's-1' })).events.every(
        (e) => e.type === 'test.Odd' && e.streamId === 's-1',
      ),
    ).toBe(true);
    const ofSeven = await trail.page({ hubId: 7 });
    expect(ofSeven.events.map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => 200 - 10 * i));
    expect(ofSeven.older).toBeNull();
    const correlated = await trail.page({ correlationId: 'c3', hubId: 1 }, Number.MAX_SAFE_INTEGER, 5);
    expect(correlated.events.map((e) => e.metadata.correlationId)).toEqual(Array(5).fill('c3'));
    expect(correlated.older).toBe(correlated.events.at(-1)!.position);
  });

  it('reads at most its scan budget for one page, and says where to continue', async () => {
    const { store, reads } = feed(SCAN_BUDGET * 2, SCAN_BUDGET * 10);
    const page = await scanningTrail(store).page({ appId: 99 });
    expect(page.events).toEqual([]);
    expect(page.scanCut).toBe(true);
    expect(page.older).toBe(SCAN_BUDGET + 1);
    expect(reads.reduce((n, r) => n + r.limit, 0)).toBe(SCAN_BUDGET);
  });

  it('refuses on a store that cannot read backwards', async () => {
    const headOnly = { headPosition: () => Promise.resolve(0) } as unknown as EventStore;
    await expect(scanningTrail(headOnly).page({})).rejects.toMatchObject({ status: 501 });
  });

  it('reads only the matching positions through the account/app index', async () => {
    const { store, reads, lookups, events } = feed(20_000, 300);
    const trail = indexedTrail(store, events);
    const first = await trail.page({ hubId: 7 });
    expect(first.events.map((e) => e.position)).toEqual(Array.from({ length: 50 }, (_, i) => 19_800 - 300 * i));
    expect(first.events[0]!.data).not.toHaveProperty('passwordHash');
    expect(first.scanCut).toBe(false);
    expect(reads).toEqual([]);
    // One lookup of 51 positions (the page and the one that says an older page exists), none else.
    expect(lookups.flat()).toHaveLength(51);
    expect(first.older).toBe(first.events.at(-1)!.position);
    expect((await trail.page({ hubId: 7 }, first.older!)).events).toHaveLength(16);
    // Combined with a type and a correlation id: the index intersects them, only the page's matches are read.
    lookups.length = 0;
    const combined = await trail.page({ hubId: 1, type: 'test.Odd', correlationId: 'c3' }, Number.MAX_SAFE_INTEGER, 5);
    expect(combined.events).toHaveLength(5);
    expect(combined.events.every((e) => e.type === 'test.Odd' && e.metadata.correlationId === 'c3')).toBe(true);
    expect(lookups.flat()).toHaveLength(6);
  });

  it('answers a combination that matches nothing without reading an event', async () => {
    const { store, lookups, events } = feed(5_000, 1);
    const trail = indexedTrail(store, events);
    for (const filter of [
      { hubId: 7, correlationId: 'nobody' },
      { hubId: 7, stream: 'no-such-stream' },
      { appId: 3, type: 'test.Even' },
      { correlationId: 'c1', type: 'test.Nothing' },
    ]) {
      const none = await trail.page(filter);
      expect({ filter, events: none.events, older: none.older, scanCut: none.scanCut }).toEqual({
        filter,
        events: [],
        older: null,
        scanCut: false,
      });
    }
    expect(lookups.flat()).toEqual([]);
  });

  it('answers every combination of the filters as a scan of the whole feed does, reading only matching events', async () => {
    const { store, lookups, events } = feed(3_000, 7);
    const indexed = indexedTrail(store, events);
    const scanned = scanningTrail(store);
    const values: { [K in keyof AuditFilter]-?: AuditFilter[K][] } = {
      hubId: [7, 1],
      appId: [],
      stream: ['s-1'],
      type: ['test.Odd'],
      correlationId: ['c2', 'nobody'],
    };
    const filters: AuditFilter[] = [{}];
    for (const key of Object.keys(values) as (keyof AuditFilter)[]) {
      for (const f of [...filters]) for (const v of values[key]) filters.push({ ...f, [key]: v });
    }
    expect(filters.length).toBeGreaterThan(30);
    for (const filter of filters) {
      let before = Number.MAX_SAFE_INTEGER;
      for (let pages = 0; pages < 3; pages++) {
        lookups.length = 0;
        const [a, b] = [await indexed.page(filter, before, 20), await scanned.page(filter, before, 20)];
        const positions = (p: typeof a) => p.events.map((e) => e.position);
        expect({ filter, positions: positions(a), older: a.older }).toEqual({
          filter,
          positions: positions(b),
          older: b.older,
        });
        // The page and the one that says an older page exists, never an event that does not match.
        expect(lookups.flat().length).toBeLessThanOrEqual(positions(a).length + 1);
        if (a.older === null) break;
        before = a.older;
      }
    }
  });

  it('stops at its probe budget when two large subjects rarely meet, and says where to continue', async () => {
    // Even positions name account 1, odd ones app 9; only position 3 names both.
    const count = 2 * (INDEX_PROBE_BUDGET + 10_000);
    const events: RecordedEvent[] = Array.from({ length: count }, (_, i) => ({
      position: i + 1,
      streamId: 's',
      revision: i,
      type: 'test.Event',
      data: i + 1 === 3 ? { hubId: 1, appId: 9 } : (i + 1) % 2 === 0 ? { hubId: 1 } : { appId: 9 },
      metadata: { eventId: `e${i}`, correlationId: 'c', causationId: null, actor: 'admin', occurredAt: i },
    }));
    const { store, lookups } = feed(0, 1);
    const withEvents = {
      ...store,
      headPosition: () => Promise.resolve(count),
      readAt: (ps: number[]) => {
        lookups.push(ps);
        return Promise.resolve(ps.map((p) => events[p - 1]!));
      },
    } as EventStore;
    const trail = indexedTrail(withEvents, events);
    const first = await trail.page({ hubId: 1, appId: 9 });
    expect(first.events).toEqual([]);
    expect(first.scanCut).toBe(true);
    expect(lookups.flat()).toEqual([]);
    // The budget's rows of the driving subject (every other position) were examined.
    expect(first.older).toBe(count - 2 * (INDEX_PROBE_BUDGET - 1));
    const rest = await trail.page({ hubId: 1, appId: 9 }, first.older!);
    expect(rest.events.map((e) => e.position)).toEqual([3]);
    expect(rest.scanCut).toBe(false);
    expect(rest.older).toBeNull();
  });

  it('skips positions the store no longer holds', async () => {
    const { store, events } = feed(5_000, 1);
    // Archived events (gone from the store) are left out; the page fills from the older ones.
    const archived = { ...store, readAt: (ps: number[]) => store.readAt!(ps.filter((p) => p % 2 === 0)) } as EventStore;
    const page = await indexedTrail(archived, events).page({ hubId: 7 });
    expect(page.events.map((e) => e.position)).toEqual(Array.from({ length: 50 }, (_, i) => 5_000 - 2 * i));
  });
});
