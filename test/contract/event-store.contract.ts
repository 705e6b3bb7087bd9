import { randomUUID } from 'node:crypto';
import { newEvent as storeEvent } from '../support/event-store-fixtures';
import type { NewEvent, RecordedEvent } from '../../src/platform/events/envelope';
import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import type { EventStore } from '../../src/platform/event-store/event-store.port';

export interface StoreUnderTest {
  store: EventStore;
  cleanup: () => Promise<void>;
  /**
   * Drops the store's connection once (open subscriptions fail, the next appends may lose their
   * replies). A no-op for an embedded store; the scripted client stand-in implements it in unit tests.
   */
  disrupt?: () => void;
  /** Makes the next subscription fail with an error resubscribing cannot cure (when the harness can). */
  failNextSubscription?: () => void;
}

/*
 * One behavioural contract for every EventStore adapter. Stream names and event types carry a
 * random suffix and every assertion on the global feed looks only at this test's streams, so the
 * suite also runs against a shared EventStoreDB server that other writers use.
 */

const unique = (label: string) => `${label}-${randomUUID().replace(/-/g, '').slice(0, 12)}`;

const newEvent = (type: string, data: Record<string, unknown> = {}) => storeEvent(type, data, 'test:contract');

const ids = (events: Array<NewEvent | RecordedEvent>) => events.map((e) => e.metadata.eventId);

/** Resolves with the error a promise rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

async function expectConflict(
  promise: Promise<unknown>,
  streamId: string,
  actual: number | 'no_stream',
): Promise<void> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(ConcurrencyError);
  expect((error as ConcurrencyError).streamId).toBe(streamId);
  expect((error as ConcurrencyError).actual).toBe(actual);
}

function expectStrictlyIncreasing(positions: number[]): void {
  for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
}

export function describeEventStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let cleanup: () => Promise<void>;
    let current: StoreUnderTest;

    beforeEach(async () => {
      current = await makeStore();
      ({ store, cleanup } = current);
    });

    afterEach(async () => {
      await cleanup();
    });

    describe('append', () => {
      it('applies appends in call order when it says so (dependent appends made together both succeed)', async () => {
        // A networked store makes no such promise (appendsInCallOrder false): callers wait instead.
        if (!store.appendsInCallOrder) return;
        const stream = unique('ordered');
        const other = unique('ordered-other');
        const [first, second, third] = await Promise.all([
          store.append(stream, [newEvent('t.A')], 'no_stream'),
          store.append(stream, [newEvent('t.B')], 0),
          store.append(other, [newEvent('t.C')], 'no_stream'),
        ]);
        expect([first.nextExpectedRevision, second.nextExpectedRevision, third.nextExpectedRevision]).toEqual([
          0, 1, 0,
        ]);
        expect(first.position).toBeLessThan(second.position);
        expect(second.position).toBeLessThan(third.position);
      });

      it("creates a stream with 'no_stream' and rejects it once the stream exists", async () => {
        const stream = unique('create');
        const first = await store.append(stream, [newEvent('t.A'), newEvent('t.B')], 'no_stream');
        expect(first.nextExpectedRevision).toBe(1);
        expect(first.position).toBeGreaterThan(0);

        const error = await rejection(store.append(stream, [newEvent('t.C')], 'no_stream'));
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ streamId: stream, expected: 'no_stream', actual: 1 });
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('appends at the exact revision and rejects a stale or future one', async () => {
        const stream = unique('exact');
        await store.append(stream, [newEvent('t.A'), newEvent('t.B')], 'no_stream');
        const next = await store.append(stream, [newEvent('t.C')], 1);
        expect(next.nextExpectedRevision).toBe(2);

        const stale = await rejection(store.append(stream, [newEvent('t.D')], 1));
        expect(stale).toBeInstanceOf(ConcurrencyError);
        expect(stale).toMatchObject({ streamId: stream, expected: 1, actual: 2 });
        await expectConflict(store.append(stream, [newEvent('t.D')], 7), stream, 2);
        const missing = unique('missing');
        await expectConflict(store.append(missing, [newEvent('t.A')], 0), missing, 'no_stream');
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it("appends with 'any' to new and existing streams", async () => {
        const stream = unique('any');
        expect((await store.append(stream, [newEvent('t.A')], 'any')).nextExpectedRevision).toBe(0);
        expect((await store.append(stream, [newEvent('t.B'), newEvent('t.C')], 'any')).nextExpectedRevision).toBe(2);
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2]);
      });

      it("appends with 'stream_exists' only to an existing stream", async () => {
        const stream = unique('exists');
        await expectConflict(store.append(stream, [newEvent('t.A')], 'stream_exists'), stream, 'no_stream');
        expect(await store.readStream(stream)).toEqual([]);
        await store.append(stream, [newEvent('t.A')], 'no_stream');
        expect((await store.append(stream, [newEvent('t.B')], 'stream_exists')).nextExpectedRevision).toBe(1);
      });

      it('treats a re-append of the same event ids as a no-op returning the original result', async () => {
        const stream = unique('idem');
        const batch = [newEvent('t.A'), newEvent('t.B')];
        const original = await store.append(stream, batch, 'no_stream');
        expect(await store.append(stream, batch, 'no_stream')).toEqual(original);

        const single = [newEvent('t.C')];
        const third = await store.append(stream, single, 1);
        expect(await store.append(stream, single, 1)).toEqual(third);

        const stored = await store.readStream(stream);
        expect(ids(stored)).toEqual(ids([...batch, ...single]));
        expect(stored[stored.length - 1]!.position).toBe(third.position);
      });
    });

    describe('readStream', () => {
      it('returns the stream in revision order with the envelope intact, from a revision', async () => {
        const stream = unique('read');
        const events = [
          newEvent('t.A', { n: 1 }),
          newEvent('t.B', { n: 2, nested: { ok: true } }),
          newEvent('t.C', { n: 3 }),
        ];
        await store.append(stream, events.slice(0, 2), 'no_stream');
        const last = await store.append(stream, events.slice(2), 1);

        const read = await store.readStream(stream);
        expect(
          read.map((e) => ({
            streamId: e.streamId,
            revision: e.revision,
            type: e.type,
            data: e.data,
            metadata: e.metadata,
          })),
        ).toEqual(
          events.map((e, i) => ({ streamId: stream, revision: i, type: e.type, data: e.data, metadata: e.metadata })),
        );
        expectStrictlyIncreasing(read.map((e) => e.position));
        expect(read[2]!.position).toBe(last.position);
        expect((await store.readStream(stream, 1)).map((e) => e.revision)).toEqual([1, 2]);
      });

      it('returns [] for a stream that does not exist', async () => {
        expect(await store.readStream(unique('nothing'))).toEqual([]);
      });
    });

    describe('readAll', () => {
      it('pages the global feed in order across streams, with streamId and type filters', async () => {
        const a = unique('all-a');
        const b = unique('all-b');
        const created = unique('t.Created');
        const updated = unique('t.Updated');
        const start = await store.headPosition();
        const e1 = newEvent(created);
        const e2 = newEvent(created);
        const e3 = newEvent(updated);
        const e4 = newEvent(updated);
        const e5 = newEvent(updated);
        await store.append(a, [e1], 'no_stream');
        await store.append(b, [e2], 'no_stream');
        await store.append(a, [e3, e4], 0);
        const lastAppend = await store.append(b, [e5], 0);
        expect(await store.headPosition()).toBeGreaterThanOrEqual(lastAppend.position);

        // Small pages; stop once all five are seen (other writers may share the server).
        const ours: RecordedEvent[] = [];
        const positions: number[] = [];
        let after = start;
        while (ours.length < 5) {
          const page = await store.readAll({ after, limit: 2 });
          expect(page.length).toBeGreaterThan(0);
          expect(page.length).toBeLessThanOrEqual(2);
          positions.push(...page.map((e) => e.position));
          ours.push(...page.filter((e) => e.streamId === a || e.streamId === b));
          after = page[page.length - 1]!.position;
        }
        expectStrictlyIncreasing(positions);
        expect(ids(ours)).toEqual(ids([e1, e2, e3, e4, e5]));
        expect(ours.map((e) => `${e.streamId === a ? 'a' : 'b'}@${e.revision}`)).toEqual([
          'a@0',
          'b@0',
          'a@1',
          'a@2',
          'b@1',
        ]);

        const ofA = await store.readAll({ after: start, limit: 100, streamId: a });
        expect(ids(ofA)).toEqual(ids([e1, e3, e4]));
        expect(ids(await store.readAll({ after: ofA[1]!.position, limit: 100, streamId: a }))).toEqual(ids([e4]));
        expect(ids(await store.readAll({ after: start, limit: 1, streamId: a }))).toEqual(ids([e1]));
        expect(ids(await store.readAll({ after: start, limit: 100, type: updated }))).toEqual(ids([e3, e4, e5]));
        expect(ids(await store.readAll({ after: start, limit: 2, type: updated }))).toEqual(ids([e3, e4]));
        expect(ids(await store.readAll({ after: start, limit: 100, streamId: b, type: updated }))).toEqual(ids([e5]));
        expect(await store.readAll({ after: start, limit: 100, streamId: unique('none') })).toEqual([]);
      });

      it('reads backwards (where the store can): newest first, before exclusive, with streamId and type filters', async () => {
        if (!store.readBackward) throw new Error('both stores read backwards');
        const a = unique('back-a');
        const b = unique('back-b');
        const created = unique('t.Created');
        const updated = unique('t.Updated');
        const e1 = newEvent(created);
        const e2 = newEvent(created);
        const e3 = newEvent(updated);
        const e4 = newEvent(updated);
        await store.append(a, [e1], 'no_stream');
        await store.append(b, [e2], 'no_stream');
        await store.append(a, [e3], 0);
        const last = await store.append(b, [e4], 0);
        const before = last.position + 1;
        expect(ids(await store.readBackward({ before, limit: 4 }))).toEqual(ids([e4, e3, e2, e1]));
        const newest2 = await store.readBackward({ before, limit: 2 });
        expect(ids(newest2)).toEqual(ids([e4, e3]));
        expect(ids(await store.readBackward({ before: newest2[1]!.position, limit: 2 }))).toEqual(ids([e2, e1]));
        expect(ids(await store.readBackward({ before, limit: 10, streamId: a }))).toEqual(ids([e3, e1]));
        expect(ids(await store.readBackward({ before, limit: 10, type: created }))).toEqual(ids([e2, e1]));
        expect(ids(await store.readBackward({ before, limit: 10, streamId: b, type: updated }))).toEqual(ids([e4]));
        expect(await store.readBackward({ before, limit: 10, type: unique('t.Never') })).toEqual([]);
      });

      it('reads the events at given positions, in the order asked, leaving out positions that hold none', async () => {
        if (!store.readAt) throw new Error('both stores read at positions');
        const a = unique('at-a');
        const e1 = newEvent(unique('t.At'));
        const e2 = newEvent(unique('t.At'));
        const e3 = newEvent(unique('t.At'));
        await store.append(a, [e1, e2], 'no_stream');
        await store.append(a, [e3], 1);
        const [p1, p2, p3] = (await store.readStream(a)).map((e) => e.position) as [number, number, number];
        expect(ids(await store.readAt([p3, p1]))).toEqual(ids([e3, e1]));
        expect(ids(await store.readAt([p2]))).toEqual(ids([e2]));
        expect(ids(await store.readAt([p3 + 1, p2]))).toEqual(ids([e2]));
        expect(await store.readAt([])).toEqual([]);
        // Through readBackward too: the newest event before a recorded position.
        expect(ids(await store.readBackward!({ before: p3, limit: 1, streamId: a }))).toEqual(ids([e2]));
        // e1 and e2 were appended together: nothing lies between them in the feed.
        expect(ids(await store.readBackward!({ before: p2, limit: 1 }))).toEqual(ids([e1]));
      });

      it('reads several types in one call: exactly the matching events, in position order, paged by after/limit', async () => {
        const [x, y, z, other] = ['x', 'y', 'z', 'other'].map((t) => unique(`t.${t}`)) as [
          string,
          string,
          string,
          string,
        ];
        const a = unique('types-a');
        const b = unique('types-b');
        const start = await store.headPosition();
        const e = [newEvent(x), newEvent(other), newEvent(y), newEvent(z), newEvent(other), newEvent(x), newEvent(y)];
        await store.append(a, [e[0]!, e[1]!], 'no_stream');
        await store.append(b, [e[2]!, e[3]!], 'no_stream');
        await store.append(a, [e[4]!, e[5]!], 1);
        await store.append(b, [e[6]!], 1);
        const wanted = [e[0]!, e[2]!, e[3]!, e[5]!, e[6]!];
        const types = [z, y, x, unique('t.never-stored')];

        const all = await store.readAll({ after: start, limit: 100, types });
        expect(ids(all)).toEqual(ids(wanted));
        expectStrictlyIncreasing(all.map((r) => r.position));

        const paged: RecordedEvent[] = [];
        let after = start;
        for (;;) {
          const page = await store.readAll({ after, limit: 2, types });
          expect(page.length).toBeLessThanOrEqual(2);
          if (page.length === 0) break;
          paged.push(...page);
          after = page[page.length - 1]!.position;
        }
        expect(ids(paged)).toEqual(ids(wanted));

        expect(ids(await store.readAll({ after: all[1]!.position, limit: 2, types: [x, y] }))).toEqual(
          ids([e[5]!, e[6]!]),
        );
        expect(ids(await store.readAll({ after: start, limit: 100, types: [y, x], streamId: b }))).toEqual(
          ids([e[2]!, e[6]!]),
        );
        expect(ids(await store.readAll({ after: start, limit: 100, types: [x], type: z }))).toEqual(
          ids([e[0]!, e[3]!, e[5]!]),
        );
        expect(await store.readAll({ after: start, limit: 100, types: [] })).toEqual([]);
      });
    });

    describe('subscribeToAll', () => {
      it('delivers catch-up then live events in order, and close() ends the iteration', async () => {
        const stream = unique('sub');
        const start = await store.headPosition();
        const catchUp = [newEvent('t.A'), newEvent('t.B')];
        const live = [newEvent('t.C'), newEvent('t.D')];
        await store.append(stream, catchUp, 'no_stream');

        const subscription = store.subscribeToAll(start);
        const iterator = subscription[Symbol.asyncIterator]();
        const received: RecordedEvent[] = [];
        const positions: number[] = [];
        let liveAppended = false;
        while (received.length < 4) {
          const next = await iterator.next();
          expect(next.done).toBeFalsy();
          const batch = next.value as RecordedEvent[];
          expect(batch.length).toBeGreaterThan(0);
          positions.push(...batch.map((e) => e.position));
          received.push(...batch.filter((e) => e.streamId === stream));
          if (!liveAppended && received.length >= 2) {
            liveAppended = true;
            await store.append(stream, live, 1);
          }
        }
        expect(positions[0]!).toBeGreaterThan(start);
        expectStrictlyIncreasing(positions);
        expect(ids(received)).toEqual(ids([...catchUp, ...live]));
        expect(received.map((e) => e.revision)).toEqual([0, 1, 2, 3]);

        subscription.close();
        expect((await iterator.next()).done).toBe(true);
      });

      it('close() ends an iteration that is waiting for events', async () => {
        const subscription = store.subscribeToAll(await store.headPosition());
        const iterator = subscription[Symbol.asyncIterator]();
        const waiting = (async () => {
          // Drain anything other writers append meanwhile; end when close() ends the feed.
          for (;;) if ((await iterator.next()).done) return 'ended';
        })();
        subscription.close();
        await expect(waiting).resolves.toBe('ended');
      });
    });

    describeFaultContract(() => current);

    describe('concurrency', () => {
      it('lets exactly one of 50 racing appenders win each revision, leaving no gaps', async () => {
        const stream = unique('race');
        await store.append(stream, [newEvent('t.Created')], 'no_stream');
        const rounds = 5;
        for (let revision = 0; revision < rounds; revision++) {
          const outcomes = await Promise.allSettled(
            Array.from({ length: 50 }, (_, i) =>
              store.append(stream, [newEvent('t.Raced', { revision, i })], revision),
            ),
          );
          const winners = outcomes.filter((o) => o.status === 'fulfilled');
          const losers = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
          expect(winners).toHaveLength(1);
          expect(
            (winners[0] as PromiseFulfilledResult<{ nextExpectedRevision: number }>).value.nextExpectedRevision,
          ).toBe(revision + 1);
          expect(losers).toHaveLength(49);
          for (const loser of losers) {
            expect(loser.reason).toBeInstanceOf(ConcurrencyError);
            expect((loser.reason as ConcurrencyError).streamId).toBe(stream);
          }
        }
        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: rounds + 1 }, (_, i) => i));
        expectStrictlyIncreasing(stored.map((e) => e.position));
      }, 60_000);
    });
  });
}

/**
 * Positions as resume cursors, a feed that survives a dropped connection exactly once, and appends
 * whose outcome is always definite. Part of the contract above; also run on its own against the
 * EventStoreDB adapter over the scripted client stand-in, whose `disrupt()` really drops things.
 */
export function describeFaultContract(harness: () => StoreUnderTest): void {
  describe('positions are resume cursors', () => {
    it('returns the stored position of the last event, and reads and subscriptions from any issued position yield exactly the later events', async () => {
      const { store } = harness();
      const stream = unique('cursor');
      const batches = [[newEvent('t.A')], [newEvent('t.B'), newEvent('t.C'), newEvent('t.D')], [newEvent('t.E')]];
      const start = await store.headPosition();
      const issued: number[] = [start];
      let expected: number | 'no_stream' = 'no_stream';
      for (const batch of batches) {
        const result = await store.append(stream, batch, expected);
        expected = result.nextExpectedRevision;
        issued.push(result.position);
      }
      const stored = await store.readStream(stream);
      const all = batches.flat();
      // The returned position is the stored position of each append's last event.
      expect(issued.slice(1)).toEqual([stored[0]!.position, stored[3]!.position, stored[4]!.position]);
      // Every stored position is a cursor too, not only the returned ones.
      const cursors = [...issued, ...stored.map((e) => e.position)];
      for (const p of cursors) {
        const later = ids(all.filter((_e, i) => stored[i]!.position > p));
        const read = await store.readAll({ after: p, limit: 1000 });
        expect(ids(read.filter((e) => e.streamId === stream))).toEqual(later);
        expect(ids(await subscribeUntil(store, p, stream, later.length))).toEqual(later);
      }
    });
  });

  describe('a subscription across a dropped connection', () => {
    it('delivers the appends made before, during and after the drop exactly once, in order', async () => {
      const { store, disrupt } = harness();
      const stream = unique('drop');
      const subscription = store.subscribeToAll(await store.headPosition());
      const iterator = subscription[Symbol.asyncIterator]();
      const appended: NewEvent[] = [];
      let revision: number | 'no_stream' = 'no_stream';
      const appendOne = async (label: string) => {
        const event = newEvent(`t.${label}`);
        revision = (await store.append(stream, [event], revision)).nextExpectedRevision;
        appended.push(event);
      };
      const received: RecordedEvent[] = [];
      const receive = async (count: number) => {
        while (received.length < count) {
          const next = await iterator.next();
          expect(next.done).toBeFalsy();
          received.push(...(next.value as RecordedEvent[]).filter((e) => e.streamId === stream));
        }
      };
      await appendOne('Before1');
      await appendOne('Before2');
      await receive(1);
      disrupt?.();
      await appendOne('During1');
      await appendOne('During2');
      await receive(3);
      disrupt?.();
      await appendOne('After1');
      await appendOne('After2');
      await receive(6);
      subscription.close();
      expect((await iterator.next()).done).toBe(true);
      expect(ids(received)).toEqual(ids(appended));
      expect(received.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
    });

    it('makes the iteration throw on an error resubscribing cannot cure', async () => {
      const { store, failNextSubscription } = harness();
      // An embedded store has no such error to cause.
      if (!failNextSubscription) return;
      failNextSubscription();
      const iterator = store.subscribeToAll(0)[Symbol.asyncIterator]();
      await expect(iterator.next()).rejects.toThrow();
    });
  });

  describe('an append has a definite outcome', () => {
    it('resolves each of 200 concurrent appends under a disruption with its stored position, or rejects it with its event absent', async () => {
      const { store, disrupt } = harness();
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const prefix = unique('burst');
        const events = Array.from({ length: 200 }, (_, i) => newEvent('t.Burst', { i }));
        const outcomes = Promise.allSettled(events.map((e, i) => store.append(`${prefix}-${i}`, [e], 'no_stream')));
        disrupt?.();
        const settled = await outcomes;
        for (const [i, outcome] of settled.entries()) {
          const stored = await store.readStream(`${prefix}-${i}`);
          if (outcome.status === 'fulfilled') {
            expect(ids(stored)).toEqual(ids([events[i]!]));
            expect(outcome.value).toEqual({ nextExpectedRevision: 0, position: stored[0]!.position });
          } else {
            expect(stored).toEqual([]);
          }
        }
        // The process survived: nothing rejected where no one listened.
        await new Promise((resolve) => setImmediate(resolve));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    }, 60_000);

    it('returns the original result when an old batch is replayed, and refuses a partly overlapping one', async () => {
      const { store } = harness();
      const stream = unique('replay');
      const first = [newEvent('t.A'), newEvent('t.B')];
      const original = await store.append(stream, first, 'no_stream');
      await store.append(stream, [newEvent('t.C')], 1);
      await store.append(stream, [newEvent('t.D')], 2);
      // The stream moved on since; the old batch at its old place is still the same append.
      expect(await store.append(stream, first, 'no_stream')).toEqual(original);
      const error = await rejection(store.append(stream, [first[0]!, newEvent('t.X')], 'no_stream'));
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['t.A', 't.B', 't.C', 't.D']);
    });
  });
}

/** The events of `stream` a subscription from `after` delivers, until `count` arrived (then it is closed). */
async function subscribeUntil(
  store: EventStore,
  after: number,
  stream: string,
  count: number,
): Promise<RecordedEvent[]> {
  // A marker appended last bounds the wait when nothing (more) of `stream` is expected.
  const marker = unique('marker');
  await store.append(marker, [newEvent('t.Marker')], 'no_stream');
  const subscription = store.subscribeToAll(after);
  const out: RecordedEvent[] = [];
  try {
    for await (const batch of subscription) {
      out.push(...batch.filter((e) => e.streamId === stream));
      if (batch.some((e) => e.streamId === marker)) break;
    }
  } finally {
    subscription.close();
  }
  expect(out.length).toBe(count);
  return out;
}
