import { AuditTrail, SCAN_BUDGET } from '../../src/console/application/audit-trail';
import type { EventStore, ReadBackwardOptions } from '../../src/platform/event-store/event-store.port';
import type { RecordedEvent } from '../../src/platform/events/envelope';

/** A feed of `count` events; every `every`-th concerns account 7 (data.hubId), the rest account 1. */
function feed(count: number, every: number): { store: EventStore; reads: ReadBackwardOptions[] } {
  const events: RecordedEvent[] = Array.from({ length: count }, (_, i) => ({
    position: i + 1,
    streamId: `s-${i % 3}`,
    revision: Math.floor(i / 3),
    type: i % 2 === 0 ? 'test.Even' : 'test.Odd',
    data: { hubId: (i + 1) % every === 0 ? 7 : 1, passwordHash: 'scrypt$secret' },
    metadata: { eventId: `e${i}`, correlationId: `c${i % 5}`, causationId: null, actor: 'admin', occurredAt: i },
  }));
  const reads: ReadBackwardOptions[] = [];
  const store = {
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
  return { store, reads };
}

describe('the console audit trail', () => {
  it('pages newest first by position, `older` continuing where the page ended, credential hashes left out', async () => {
    const { store } = feed(120, 1);
    const trail = new AuditTrail(store);
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
    const trail = new AuditTrail(store);
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
    const page = await new AuditTrail(store).page({ appId: 99 });
    expect(page.events).toEqual([]);
    expect(page.scanCut).toBe(true);
    expect(page.older).toBe(SCAN_BUDGET + 1);
    expect(reads.reduce((n, r) => n + r.limit, 0)).toBe(SCAN_BUDGET);
  });

  it('refuses on a store that cannot read backwards', async () => {
    await expect(new AuditTrail({} as EventStore).page({})).rejects.toMatchObject({ status: 501 });
  });
});
