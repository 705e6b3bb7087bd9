import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../support/manual-clock';
import { ConcurrencyConflictError } from '../../src/platform/commands/concurrency-conflict-error';
import type { Decider } from '../../src/platform/commands/decider';
import { EventStreams } from '../../src/platform/commands/event-streams';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import type { DomainEvent, NewEvent } from '../../src/platform/events/envelope';
import { eventTypes, UnknownEventTypeError } from '../../src/platform/events/event-type-registry';
import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';

interface Ticked {
  type: 'test.Ticked';
  data: { by: number };
}

// `test.Ticked` was once stored without `by`; the decoder upcasts that shape to by = 1.
eventTypes.register({
  'test.Ticked': (data) => ({ by: 1, ...(data as object) }),
  'test.Stored': null,
});

/**
 * The one write path on a real SQLite store: EventStreams (decoded loads, envelopes) and the DeciderCommandHandler's retry policy. A
 * competing writer that appends between every load and append makes each attempt lose the
 * expected-revision race, deterministically (no timing involved).
 */
describe('EventStreams and DeciderCommandHandler on a real SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let streams: EventStreams;
  const clock = new ManualClock(1_700_000_000_000);
  const ctx = { correlationId: '00000000-0000-4000-8000-000000000001', actor: 'test:writer' };
  const competitorEvent = (): NewEvent => ({
    type: 'test.Ticked',
    data: { by: 1 },
    metadata: {
      eventId: crypto.randomUUID(),
      correlationId: 'c',
      causationId: null,
      actor: 'competitor',
      occurredAt: 0,
    },
  });

  /** A counter whose decide lets another writer in first on its first `losses` calls. */
  function contested(streamId: string, losses: number) {
    const calls = { n: 0 };
    const decider: Decider<number, { by: number }, Ticked> = {
      initialState: () => 0,
      evolve: (n, e) => n + e.data.by,
      decide: (command, state) => {
        calls.n++;
        // The competitor appends with the revision this attempt loaded: ours is now stale.
        if (calls.n <= losses)
          void store.append(streamId, [competitorEvent()], calls.n === 1 ? 'no_stream' : calls.n - 2);
        void state;
        return [{ type: 'test.Ticked', data: { by: command.by } }];
      },
    };
    return { calls, decider };
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'decider-handler-int-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    streams = new EventStreams(store, clock);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives up after the default policy with ConcurrencyConflictError: a HubSpot 409 CONFLICT', async () => {
    const { calls, decider } = contested('test-default', 100);
    const error = await streams
      .forDecider(decider)
      .handle('test-default', { by: 1 }, ctx)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrencyConflictError);
    expect(error).toBeInstanceOf(HubSpotError);
    expect(error).toMatchObject({ httpStatus: 409, category: 'CONFLICT', streamId: 'test-default', attempts: 5 });
    expect((error as HubSpotError).extras.subCategory).toBeUndefined();
    expect(calls.n).toBe(5);
    // nothing of ours was stored: the stream holds the five competitors' events only
    expect(await store.readStream('test-default')).toHaveLength(5);
  });

  it('a policy with more attempts wins through seven lost races and decides on the newest state', async () => {
    const { calls, decider } = contested('test-more', 7);
    const result = await streams.forDecider(decider, { maxAttempts: 8 }).handle('test-more', { by: 5 }, ctx);
    expect(calls.n).toBe(8);
    expect(result.events).toEqual([{ type: 'test.Ticked', data: { by: 5 } }]);
    expect(result.state).toBe(12); // seven competitor ticks of 1, then ours of 5
    expect(await store.readStream('test-more')).toHaveLength(8);
  });

  it('a policy per call: fewer attempts give up sooner', async () => {
    const { calls, decider } = contested('test-fewer', 100);
    await expect(
      streams.forDecider(decider).handle('test-fewer', { by: 1 }, ctx, { maxAttempts: 2 }),
    ).rejects.toMatchObject({ attempts: 2 });
    expect(calls.n).toBe(2);
  });

  it('refuses a policy that is not a positive integer', async () => {
    const { decider } = contested('test-bad', 0);
    await expect(streams.forDecider(decider, { maxAttempts: 0 }).handle('test-bad', { by: 1 }, ctx)).rejects.toThrow(
      RangeError,
    );
  });

  it('stamps envelopes from the context and the clock', async () => {
    const { decider } = contested('test-env', 0);
    const result = await streams.forDecider(decider).handle('test-env', { by: 2 }, { ...ctx, causationId: 'cause-1' });
    const [stored] = await store.readStream('test-env');
    expect(stored!.metadata).toMatchObject({
      correlationId: ctx.correlationId,
      causationId: 'cause-1',
      actor: ctx.actor,
      occurredAt: 1_700_000_000_000,
    });
    expect(stored!.type).toBe('test.Ticked');
    expect(result.position).toBe(stored!.position);
  });

  it('with archived events: retries a lost race and removes them in the append that wins', async () => {
    const old = await store.append('test-archived-source', [competitorEvent(), competitorEvent()], 'no_stream');
    const [first, second] = await store.readStream('test-archived-source');
    const archived = {
      purge: [first!, second!].map((e) => ({
        position: e.position,
        eventId: e.metadata.eventId,
        streamId: e.streamId,
      })),
      streams: [{ streamId: 'test-archived-source', lastRevision: old.nextExpectedRevision }],
    };
    const { calls, decider } = contested('test-archived-record', 2);
    const result = await streams
      .forDecider(decider)
      .handle('test-archived-record', { by: 3 }, ctx, undefined, archived);
    expect(calls.n).toBe(3);
    expect(result.state).toBe(5); // two competitor ticks of 1, then ours of 3
    expect(await store.readStream('test-archived-source')).toEqual([]);
    expect(await store.readStream('test-archived-record')).toHaveLength(3);
  });

  it('a decision of no events appends and publishes nothing', async () => {
    const noop: Decider<number, null, Ticked> = { initialState: () => 0, evolve: (n) => n, decide: () => [] };
    expect(await streams.forDecider(noop).handle('test-noop', null, ctx)).toEqual({
      state: 0,
      events: [],
      position: 0,
    });
    expect(await store.readStream('test-noop')).toEqual([]);
  });

  it('loads streams decoded through the registry: an old shape is upcast, an unknown type refused', async () => {
    const old = competitorEvent();
    await store.append('test-old', [{ ...old, data: {} }], 'no_stream');
    const counter = { initialState: () => 0, evolve: (n: number, e: Ticked) => n + e.data.by };
    expect(await streams.load('test-old', counter)).toMatchObject({ state: 1, expected: 0 });

    await store.append('test-unknown', [{ ...competitorEvent(), type: 'test.NeverRegistered' }], 'no_stream');
    await expect(streams.load('test-unknown', counter)).rejects.toBeInstanceOf(UnknownEventTypeError);
  });

  describe("handleProbablyNew (a unique value's first claim)", () => {
    /** Counts decisions and remembers the state each was made on. */
    function counting() {
      const seen: number[] = [];
      const decider: Decider<number, { by: number }, Ticked> = {
        initialState: () => 0,
        evolve: (n, e) => n + e.data.by,
        decide: (command, state) => {
          seen.push(state);
          return state >= 10 ? [] : [{ type: 'test.Ticked', data: { by: command.by } }];
        },
      };
      return { seen, decider };
    }

    it('a new stream: decides on the initial state and appends expecting no stream, without reading it', async () => {
      const { seen, decider } = counting();
      const reads = jest.spyOn(store, 'readStream');
      const result = await streams.forDecider(decider).handleProbablyNew('test-new', { by: 4 }, ctx);
      expect(reads).not.toHaveBeenCalled();
      expect(seen).toEqual([0]);
      expect(result).toMatchObject({ state: 4, events: [{ type: 'test.Ticked', data: { by: 4 } }] });
      expect(await store.readStream('test-new')).toHaveLength(1);
    });

    it('an existing stream: the refused append is not stored, and the command is decided on the real state', async () => {
      await store.append('test-existing', [competitorEvent(), competitorEvent()], 'no_stream');
      const { seen, decider } = counting();
      const result = await streams.forDecider(decider).handleProbablyNew('test-existing', { by: 3 }, ctx);
      expect(seen).toEqual([0, 2]);
      expect(result.state).toBe(5);
      const stored = await store.readStream('test-existing');
      expect(stored.map((e) => (e.data as { by: number }).by)).toEqual([1, 1, 3]);
    });

    it('an existing stream whose state decides nothing: nothing is appended', async () => {
      await store.append('test-full', [{ ...competitorEvent(), data: { by: 10 } }], 'no_stream');
      const { seen, decider } = counting();
      expect(await streams.forDecider(decider).handleProbablyNew('test-full', { by: 1 }, ctx)).toEqual({
        state: 10,
        events: [],
        position: 0,
      });
      expect(seen).toEqual([0, 10]);
      expect(await store.readStream('test-full')).toHaveLength(1);
    });
  });

  it('appendInOrder: the second append takes effect after the first, and a failure is reported', async () => {
    const stored: DomainEvent = { type: 'test.Stored', data: {} };
    const results = await streams.appendInOrder(
      [
        { streamId: 'test-first', events: [stored], expected: 'no_stream' },
        { streamId: 'test-second', events: [stored], expected: 'no_stream' },
      ],
      ctx,
    );
    expect(results[1]!.position).toBeGreaterThan(results[0]!.position);
    await expect(
      streams.appendInOrder([{ streamId: 'test-first', events: [stored], expected: 'no_stream' }], ctx),
    ).rejects.toBeInstanceOf(ConcurrencyError);
  });
});
