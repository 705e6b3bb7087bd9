import { createServer } from 'node:net';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { describeEventStoreContract } from '../contract/event-store.contract';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;

if (connectionString) {
  describeEventStoreContract(`EventStoreDbEventStore (${connectionString})`, () => {
    const store = new EventStoreDbEventStore(connectionString);
    return Promise.resolve({ store, cleanup: () => store.close() });
  });
} else {
  // Say so loudly: a skipped contract is not a passed one.
  const reason =
    'EventStoreDB contract — skipped: EVENTSTORE_CONNECTION_STRING is not set (no EventStoreDB server on this machine)';
  process.stderr.write(`\n${reason}\n`);
  describe.skip(reason, () => {
    it('runs the EventStore contract against EventStoreDB', () => undefined);
  });
}

/** A localhost port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// Real client, no server: covers the failure paths, which need no EventStoreDB.
describe('EventStoreDbEventStore with no server reachable', () => {
  it('rejects ping() and reads', async () => {
    const store = new EventStoreDbEventStore(`esdb://127.0.0.1:${await closedPort()}?tls=false`);
    try {
      await expect(store.ping()).rejects.toThrow(/UNAVAILABLE|ECONNREFUSED/);
      await expect(store.readStream('anything')).rejects.toThrow();
      await expect(store.headPosition()).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it('keeps resubscribing with capped exponential backoff until close()', async () => {
    const delays: number[] = [];
    let reachedCap!: () => void;
    const capped = new Promise<void>((resolve) => (reachedCap = resolve));
    const store = new EventStoreDbEventStore(`esdb://127.0.0.1:${await closedPort()}?tls=false`, {
      backoff: { initialMs: 5, maxMs: 20 },
      onSubscriptionError: (_error, retryInMs) => {
        if (retryInMs !== null) delays.push(retryInMs);
        if (delays.length === 5) reachedCap();
      },
    });
    try {
      const subscription = store.subscribeToAll(0);
      const next = subscription[Symbol.asyncIterator]().next();
      await capped;
      subscription.close();
      await expect(next).resolves.toEqual({ value: undefined, done: true });
      expect(delays.slice(0, 5)).toEqual([5, 10, 20, 20, 20]);
    } finally {
      await store.close();
    }
  });

  it('ends open subscriptions when the store closes', async () => {
    const store = new EventStoreDbEventStore(`esdb://127.0.0.1:${await closedPort()}?tls=false`, {
      backoff: { initialMs: 5, maxMs: 5 },
    });
    const next = store.subscribeToAll(0)[Symbol.asyncIterator]().next();
    await store.close();
    await expect(next).resolves.toEqual({ value: undefined, done: true });
    await expect(store.append('s', [], 'any')).rejects.toThrow(/closed/);
  });
});
