import { Test } from '@nestjs/testing';
import { CqrsModule } from '@nestjs/cqrs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIER_LIMITS } from '../../src/platform/tiers';
import { AccountLimitsCommand, accountLimitsDecider } from '../../src/crm-schema/domain/account-limits.decider';
import { usageOf } from '../../src/crm-schema/domain/account-limits.state';
import { limitsAccountStream, limitsEvents } from '../../src/crm-schema/domain/limits-events';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../../src/crm-schema/application/account-limits.handler';
import { CLOCK, ManualClock } from '../../src/platform/clock';
import { EventStreams } from '../../src/platform/commands/event-streams';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { EVENT_STORE } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { eventTypes } from '../../src/platform/events/event-type-registry';

/**
 * The account's folded state kept between commands (SnapshottingDeciderHandler): a command reads
 * only the events after it, writes of another instance are caught up, and the ceilings hold.
 */
describe('limits snapshots on a real SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let streams: EventStreams;
  const clock = new ManualClock();
  const ctx = { correlationId: '00000000-0000-4000-8000-000000000000', actor: 'test:limits' };
  const HUB = 78;
  const stream = limitsAccountStream(HUB);
  const BOUNDS = { capacity: 8, maxBytes: 32 * 1024 * 1024 };
  eventTypes.register(limitsEvents); // as CrmSchemaModule does: the store boundary decodes through it

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'limits-snap-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    const moduleRef = await Test.createTestingModule({
      imports: [CqrsModule.forRoot()],
      providers: [EventStreams, { provide: EVENT_STORE, useValue: store }, { provide: CLOCK, useValue: clock }],
    }).compile();
    streams = moduleRef.get(EventStreams);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (name: string, ceiling = 1000): AccountLimitsCommand => ({
    type: 'CreateProperty',
    facts: {
      hubId: HUB,
      tier: 'enterprise',
      tierLimits: { ...DEFAULT_TIER_LIMITS.enterprise, customProperties: ceiling },
      userId: 1,
      now: clock.now(),
    },
    objectType: 'contacts',
    property: { name, label: name, type: 'string', fieldType: 'text' },
  });

  it('reads only the events after the kept state', async () => {
    const handler = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, BOUNDS);
    const reads = jest.spyOn(store, 'readStream');
    await handler.handle(stream, create('a'), ctx);
    await handler.handle(stream, create('b'), ctx);
    const { state } = await handler.handle(stream, create('c'), ctx);
    expect(reads.mock.calls.map(([, from]) => from)).toEqual([0, 1, 2]);
    expect(usageOf(state).customPropertiesByType).toEqual({ '0-1': 3 });
  });

  it('catches up with another instance’s writes; concurrent creates on two instances stop exactly at the ceiling', async () => {
    const one = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, BOUNDS);
    const two = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, BOUNDS);
    await one.handle(stream, create('first', 6), ctx);
    await two.handle(stream, create('second', 6), ctx); // two has never seen "first": it reads it now
    await expect(one.handle(stream, create('second', 6), ctx)).rejects.toMatchObject({ httpStatus: 409 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? one : two).handle(stream, create(`p${i}`, 6), ctx)),
    );
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(ok).toHaveLength(4);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(HubSpotError);
      expect((r.reason as HubSpotError).extras.subCategory).toBe('LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED');
    }
    const fresh = await streams.load(stream, accountLimitsDecider);
    expect(usageOf(fresh.state).customPropertiesByType).toEqual({ '0-1': 6 });
  });

  it('the SQLite store reads a stream from a revision: the tail only, nothing past the end', async () => {
    const handler = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, BOUNDS);
    for (const n of ['a', 'b', 'c', 'd']) await handler.handle(stream, create(n), ctx);
    expect((await store.readStream(stream, 2)).map((e) => e.revision)).toEqual([2, 3]);
    expect(await store.readStream(stream, 4)).toEqual([]);
    expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2, 3]);
    expect((await store.readStream(stream, 1)).map((e) => e.revision)).toEqual([1, 2, 3]);
  });

  it('a refused command leaves the kept state as it was', async () => {
    const handler = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, BOUNDS);
    await handler.handle(stream, create('a', 1), ctx);
    await expect(handler.handle(stream, create('b', 1), ctx)).rejects.toBeInstanceOf(HubSpotError);
    const { state } = await handler.handle(
      stream,
      { ...create('a'), type: 'ArchiveProperty', name: 'a' } as never,
      ctx,
    );
    expect(usageOf(state).customPropertiesByType).toEqual({});
  });

  it('keeps states within a byte budget: a large account leaves, or is never kept, and replays whole next time', async () => {
    // Property definitions with big options: what an account's state holds grows with them.
    const big = (name: string): AccountLimitsCommand => {
      const command = create(name) as Extract<AccountLimitsCommand, { type: 'CreateProperty' }>;
      const options = Array.from({ length: 40 }, (_, i) => ({ label: `${'x'.repeat(200)}${i}`, value: `v${i}` }));
      return { ...command, property: { ...command.property, type: 'enumeration', fieldType: 'select', options } };
    };
    const handler = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, {
      capacity: 8,
      maxBytes: 600_000,
    });
    const other = limitsAccountStream(HUB + 1);
    for (let i = 0; i < 5; i++) await handler.handle(stream, big(`p${i}`), ctx);
    const oneAccount = handler.keptBytes;
    expect(oneAccount).toBeGreaterThan(5 * 16_000); // 40 options of ~200 characters, at two bytes each
    expect(oneAccount).toBeLessThanOrEqual(150_000); // a quarter of the budget: still kept
    await handler.handle(other, big('q0'), ctx);
    expect(handler.keptBytes).toBeGreaterThan(oneAccount);
    // The first account grows past a quarter of the budget: it is no longer kept.
    for (let i = 5; i < 10; i++) await handler.handle(stream, big(`p${i}`), ctx);
    expect(handler.keptBytes).toBeLessThan(oneAccount);
    // ...and its next command still sees every property it has (replayed from the store).
    const { state } = await handler.handle(stream, create('small'), ctx);
    expect(usageOf(state).customPropertiesByType).toEqual({ '0-1': 11 });
  });
});
