import { EventStoreDBClient } from '@eventstore/db-client';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import { appendCredentials } from '../../src/platform/event-store/eventstoredb-client';
import {
  EventStoreDbEventStore,
  ReadDeadlineError,
  type EventStoreDbEventStoreOptions,
} from '../../src/platform/event-store/eventstoredb-event-store';
import {
  FeedFailedError,
  InvalidPositionError,
  StoreUnavailableError,
} from '../../src/platform/event-store/store-errors';
import { toHubSpotError } from '../../src/platform/errors/error-mapping';
import { describeFaultContract, type StoreUnderTest } from '../contract/event-store.contract';
import { newEvent } from '../support/event-store-fixtures';
import {
  accessDenied,
  deadlineExceeded,
  invalidPosition,
  ScriptedEsdbClient,
  unavailable,
} from '../support/scripted-esdb-client';

/*
 * The EventStoreDB adapter driven through a scripted stand-in of @eventstore/db-client's calls
 * (test/support/scripted-esdb-client.ts): lost replies, errors, dropped and refused subscriptions,
 * hung reads. No server runs here; the contract against a real one is the integration spec.
 */

const CREDENTIALS = { username: 'u', password: 'p' };

function adapter(options: EventStoreDbEventStoreOptions = {}) {
  const client = new ScriptedEsdbClient();
  const store = new EventStoreDbEventStore(client, {
    credentials: CREDENTIALS,
    appendRetryDelayMs: 1,
    backoff: { initialMs: 1, maxMs: 4 },
    ...options,
  });
  return { client, store };
}

async function take(iterator: AsyncIterator<RecordedEvent[]>, count: number): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  while (out.length < count) {
    const next = await iterator.next();
    if (next.done) throw new Error(`feed ended after ${out.length} events`);
    out.push(...next.value);
  }
  return out;
}

describe('EventStoreDB adapter over a scripted client', () => {
  describe('1. appends take 6.2.1 plain append path', () => {
    it('sends credentials with every append, which is what makes 6.2.1 skip its shared batch-append stream', async () => {
      // The real 6.2.1 client, told that the server supports batch append, with its two transports spied on.
      const connection = 'esdb://127.0.0.1:1?tls=false';
      const client = EventStoreDBClient.connectionString(connection);
      const used: string[] = [];
      const internals = client as unknown as Record<string, unknown>;
      internals.supports = () => Promise.resolve(true);
      internals.execute = (_service: unknown, name: string) => {
        used.push(`call:${name}`);
        return Promise.reject(Object.assign(new Error('refused'), { type: 'access-denied' }));
      };
      internals.GRPCStreamCreator = () => () => {
        used.push('batch-append stream');
        return Promise.reject(Object.assign(new Error('refused'), { type: 'access-denied' }));
      };
      const store = new EventStoreDbEventStore(client as never, { credentials: appendCredentials(connection) });
      await expect(store.append('s-1', [newEvent('t.A')], 'no_stream')).rejects.toThrow('refused');
      expect(used).toEqual(['call:appendToStream']);
      await store.close();
    });

    it('derives the per-call credentials from the connection string', () => {
      expect(appendCredentials('esdb://admin:changeit@host:2113?tls=true')).toEqual({
        username: 'admin',
        password: 'changeit',
      });
      expect(appendCredentials('esdb://127.0.0.1:2113?tls=false')).toHaveProperty('username');
      expect(() => appendCredentials('esdb://host:2113')).toThrow(/needs a user/);
    });
  });

  describe('2. an unknown append outcome is settled by sending the same append again', () => {
    it('resolves with the stored position when the reply to a committed append was lost', async () => {
      const { client, store } = adapter();
      client.appendScript.push({ kind: 'commit-then-fail', error: deadlineExceeded() });
      const result = await store.append('s-2', [newEvent('t.A')], 'no_stream');
      const stored = await store.readStream('s-2');
      expect(stored).toHaveLength(1);
      expect(result).toEqual({ nextExpectedRevision: 0, position: stored[0]!.position });
      expect(client.appendCalls).toHaveLength(2);
      await store.close();
    });

    it('writes an append whose first send failed before the write, once', async () => {
      const { client, store } = adapter();
      client.appendScript.push({ kind: 'fail', error: unavailable() }, { kind: 'fail', error: unavailable() });
      const batch = [newEvent('t.A'), newEvent('t.B')];
      const result = await store.append('s-3', batch, 'no_stream');
      expect((await store.readStream('s-3')).map((e) => e.metadata.eventId)).toEqual(
        batch.map((e) => e.metadata.eventId),
      );
      expect(result.nextExpectedRevision).toBe(1);
      await store.close();
    });

    it('meets a definite conflict when another writer took the revision meanwhile', async () => {
      const { client, store } = adapter();
      await store.append('s-4', [newEvent('t.A')], 'no_stream');
      client.appendScript.push({ kind: 'fail', error: unavailable() });
      const mine = store.append('s-4', [newEvent('t.Mine')], 0);
      await store.append('s-4', [newEvent('t.Theirs')], 0);
      await expect(mine).rejects.toBeInstanceOf(ConcurrencyError);
      await store.close();
    });

    it('gives up after the last attempt with StoreUnavailableError, answered 503 with Retry-After', async () => {
      const { client, store } = adapter({ appendAttempts: 3 });
      for (let i = 0; i < 3; i++) client.appendScript.push({ kind: 'fail', error: unavailable() });
      const error = await store.append('s-5', [newEvent('t.A')], 'no_stream').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(client.appendCalls).toHaveLength(3);
      const mapped = toHubSpotError(error);
      expect(mapped.isBug).toBe(false);
      expect(mapped.error.httpStatus).toBe(503);
      expect(mapped.error.category).toBe('SERVICE_UNAVAILABLE');
      expect(mapped.error.extras.headers).toEqual({ 'retry-after': '5' });
      await store.close();
    });

    it('settles every one of concurrent appends whose replies a disruption cut off, each stored once', async () => {
      const { client, store } = adapter();
      const events = Array.from({ length: 20 }, (_, i) => newEvent('t.N', { i }));
      const results = Promise.all(events.map((e, i) => store.append(`burst-${i}`, [e], 'no_stream')));
      client.disrupt();
      const settled = await results;
      expect(client.appendCalls.length).toBeGreaterThan(20); // the disruption did cut replies off
      expect(client.log).toHaveLength(20);
      for (const [i, result] of settled.entries()) {
        expect(result.position).toBe((await store.readStream(`burst-${i}`))[0]!.position);
      }
      await store.close();
    });

    it('passes definite refusals on without resending', async () => {
      const { client, store } = adapter();
      client.appendScript.push({ kind: 'fail', error: accessDenied() });
      await expect(store.append('s-6', [newEvent('t.A')], 'no_stream')).rejects.toThrow(/Access denied/);
      expect(client.appendCalls).toHaveLength(1);
      await store.close();
    });
  });

  describe('3. positions of another store', () => {
    it('answers a read after a position that is no record of this log with InvalidPositionError (400)', async () => {
      const { store } = adapter();
      const { position } = await store.append('s-7', [newEvent('t.A')], 'no_stream');
      await expect(store.readAll({ after: position + 1, limit: 10 })).rejects.toBeInstanceOf(InvalidPositionError);
      expect(toHubSpotError(new InvalidPositionError(7)).error.httpStatus).toBe(400);
      await store.close();
    });

    it('names itself by kind and first event', async () => {
      const { store } = adapter();
      expect(await store.identity()).toBeNull();
      const first = newEvent('t.A');
      await store.append('s-8', [first], 'no_stream');
      await store.append('s-9', [newEvent('t.B')], 'no_stream');
      expect(await store.identity()).toBe(`eventstoredb:${first.metadata.eventId}`);
      await store.close();
    });
  });

  describe('4. subscription errors', () => {
    it('resubscribes after a transient error, reports it with the delay, and loses nothing', async () => {
      const reports: Array<[string, number | null]> = [];
      const { client, store } = adapter({
        onSubscriptionError: (error, retryInMs) => reports.push([(error as Error).message, retryInMs]),
      });
      await store.append('s-10', [newEvent('t.A')], 'no_stream');
      client.subscribeFailures.push(unavailable('node restarting'));
      const iterator = store.subscribeToAll(0)[Symbol.asyncIterator]();
      expect((await take(iterator, 1)).map((e) => e.type)).toEqual(['t.A']);
      expect(reports).toEqual([['node restarting', 1]]);
      await store.close();
    });

    it.each([
      ['access denied', accessDenied()],
      ['an invalid position', invalidPosition()],
    ])('ends the iteration with FeedFailedError on %s, reported once', async (_label, failure) => {
      const reports: Array<number | null> = [];
      const { client, store } = adapter({ onSubscriptionError: (_e, retryInMs) => reports.push(retryInMs) });
      client.subscribeFailures.push(failure);
      const iterator = store.subscribeToAll(0)[Symbol.asyncIterator]();
      const error = await iterator.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FeedFailedError);
      expect((error as FeedFailedError).reason).toBe(failure.message);
      expect(reports).toEqual([null]);
      expect(client.subscribeCalls).toHaveLength(1);
      await store.close();
    });

    it('ends the iteration when an event of ours cannot be decoded', async () => {
      const { client, store } = adapter();
      await store.append('s-11', [newEvent('t.A')], 'no_stream');
      // An event with our envelope but no log position (servers before 22.6).
      client.positionsUnreported = true;
      const error = await store
        .subscribeToAll(0)
        [Symbol.asyncIterator]()
        .next()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FeedFailedError);
      await store.close();
    });
  });

  describe('6. our own deadlines on reads and subscriptions', () => {
    it('fails a read the server never answers', async () => {
      const { client, store } = adapter({ readDeadlineMs: 20 });
      client.stallReads = 1;
      await expect(store.readStream('s-12')).rejects.toBeInstanceOf(ReadDeadlineError);
      client.stallReads = 1;
      await expect(store.ping()).rejects.toBeInstanceOf(ReadDeadlineError);
      await store.close();
    }, 20_000);

    it('retries a subscription the server never confirms', async () => {
      const reports: unknown[] = [];
      const { client, store } = adapter({ subscribeDeadlineMs: 20, onSubscriptionError: (e) => reports.push(e) });
      client.confirmSubscriptions = false;
      await store.append('s-13', [newEvent('t.A')], 'no_stream');
      const subscription = store.subscribeToAll(0);
      // The stand-in delivers events only to confirmed subscriptions; confirm from the second on.
      const iterator = subscription[Symbol.asyncIterator]();
      const next = iterator.next();
      while (reports.length === 0) await new Promise((resolve) => setImmediate(resolve));
      client.confirmSubscriptions = true;
      expect(reports[0]).toBeInstanceOf(ReadDeadlineError);
      expect(((await next).value as RecordedEvent[]).map((e) => e.type)).toEqual(['t.A']);
      await store.close();
    }, 20_000);
  });

  describe('7. fewer scans', () => {
    it('reads a stream after a position from the first revision past it, not from 0', async () => {
      const { client, store } = adapter();
      const events = Array.from({ length: 40 }, (_, i) => newEvent('t.N', { i }));
      let expected: number | 'no_stream' = 'no_stream';
      const positions: number[] = [];
      for (const e of events) {
        const r = await store.append('s-14', [e], expected);
        expected = r.nextExpectedRevision;
        positions.push(r.position);
      }
      const reads: number[] = [];
      const readStream = client.readStream.bind(client);
      client.readStream = (streamId, options) => {
        const read = readStream(streamId, options);
        let n = 0;
        (read as unknown as NodeJS.EventEmitter).on('data', () => (n += 1));
        (read as unknown as NodeJS.EventEmitter).on('end', () => reads.push(n));
        return read;
      };
      const page = await store.readAll({ after: positions[35]!, limit: 10, streamId: 's-14' });
      expect(page.map((e) => e.revision)).toEqual([36, 37, 38, 39]);
      // One event per bisection step plus the 4 asked for; never the whole stream.
      expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(15);
      await store.close();
    });

    it('reuses a head position for headCacheMs and shares one lookup between concurrent callers', async () => {
      let now = 0;
      const { client, store } = adapter({ headCacheMs: 1000, now: () => now });
      const { position } = await store.append('s-15', [newEvent('t.A')], 'no_stream');
      let lookups = 0;
      const readAll = client.readAll.bind(client);
      client.readAll = (options) => {
        lookups += 1;
        return readAll(options);
      };
      expect(await Promise.all([store.headPosition(), store.headPosition()])).toEqual([position, position]);
      expect(await store.headPosition()).toBe(position);
      expect(lookups).toBe(1);
      const second = await store.append('s-15', [newEvent('t.B')], 0);
      expect(await store.headPosition()).toBe(second.position); // own appends move it at once
      now = 1000;
      client.writeForeign('other-writer', 'x.Foreign'); // not ours: no envelope
      expect(await store.headPosition()).toBe(second.position);
      expect(lookups).toBe(2);
      await store.close();
    });
  });

  describe('8. smaller items', () => {
    it('asks for a subscription buffer as large as a batch', async () => {
      const { client, store } = adapter();
      await store.append('s-16', [newEvent('t.A')], 'no_stream');
      const iterator = store.subscribeToAll(0)[Symbol.asyncIterator]();
      await take(iterator, 1);
      expect(client.subscribeCalls[0]!.highWaterMark).toBe(1000);
      await store.close();
    });

    it('lets a read in flight finish before disconnecting: close() never truncates it', async () => {
      const { client, store } = adapter();
      await store.append(
        's-17',
        [1, 2, 3, 4].map((i) => newEvent('t.N', { i })),
        'no_stream',
      );
      client.pauseReadsAfter(2);
      const read = store.readStream('s-17');
      while (client.pausedReads === 0) await new Promise((resolve) => setImmediate(resolve));
      const closed = store.close();
      client.resumeReads();
      expect(await read).toHaveLength(4);
      await closed;
    });

    it('refuses reads after close()', async () => {
      const { store } = adapter();
      await store.close();
      await expect(store.readStream('s-18')).rejects.toThrow(/closed/);
      await expect(store.readAll({ after: 0, limit: 1 })).rejects.toThrow(/closed/);
      await expect(store.headPosition()).rejects.toThrow(/closed/);
      await expect(store.append('s-18', [newEvent('t.A')], 'any')).rejects.toThrow(/closed/);
    });
  });

  describe('9. retention behind the port (EventStore.retention)', () => {
    it('a client without metadata calls gives no retention: archiving is refused, not half done', async () => {
      const { store } = adapter();
      expect(store.retention).toBeUndefined();
      await store.close();
    });

    it('with metadata calls: $tb on each archived stream through the same client, then the record', async () => {
      const truncated: Array<{ streamId: string; truncateBefore: number; recordStream: number }> = [];
      const client = Object.assign(new ScriptedEsdbClient(), {
        setStreamMetadata(streamId: string, metadata: { truncateBefore: number }): Promise<unknown> {
          // How many events the record's stream holds when $tb is set: none, since $tb comes first.
          return store
            .readStream('ops.history-archive-f')
            .then((record) => truncated.push({ streamId, ...metadata, recordStream: record.length }));
        },
      });
      const store = new EventStoreDbEventStore(client, { credentials: CREDENTIALS, appendRetryDelayMs: 1 });
      await store.append('s-19', [newEvent('t.A'), newEvent('t.B')], 'no_stream');
      const result = await store.retention!.appendRemovingArchived(
        'ops.history-archive-f',
        [newEvent('ops.HistoryArchived')],
        'no_stream',
        { purge: [], streams: [{ streamId: 's-19', lastRevision: 1 }] },
      );
      expect(truncated).toEqual([{ streamId: 's-19', truncateBefore: 2, recordStream: 0 }]);
      expect(result.nextExpectedRevision).toBe(0);
      expect(await store.readStream('ops.history-archive-f')).toHaveLength(1);
      await store.close();
    });
  });
});

// Only the fault part of the contract, and named for what it is: the EventStoreDB contract itself
// runs against a real server (test/integration/eventstoredb-event-store.int.spec.ts).
describe('fault contract: EventStoreDB adapter over the scripted client stand-in (not a server)', () => {
  let current: StoreUnderTest;
  beforeEach(() => {
    const { client, store } = adapter();
    current = {
      store,
      cleanup: () => store.close(),
      disrupt: () => client.disrupt(2),
      failNextSubscription: () => client.subscribeFailures.push(accessDenied()),
    };
  });
  afterEach(() => current.cleanup());
  describeFaultContract(() => current);
});
