import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { EsdbStandIn } from '../support/esdb-standin/server';

/*
 * The event-store contract over gRPC: our adapter and the real @eventstore/db-client 6.2.1 against
 * the EventStoreDB stand-in (test/support/esdb-standin), a server that speaks EventStoreDB's
 * protocol. It is not EventStoreDB's engine; the run against a real server stays in
 * eventstoredb-event-store.int.spec.ts, gated on EVENTSTORE_CONNECTION_STRING.
 */
describeEventStoreContract('EventStoreDbEventStore over gRPC (EventStoreDB stand-in)', async () => {
  const standIn = new EsdbStandIn();
  const connectionString = await standIn.start();
  const store = new EventStoreDbEventStore(connectionString, {
    appendRetryDelayMs: 5,
    backoff: { initialMs: 5, maxMs: 50 },
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await standIn.stop();
    },
    // The connection drops: open subscriptions fail, appends in flight lose their replies.
    disrupt: () => standIn.dropConnections(),
    failNextSubscription: () => {
      standIn.refuseSubscriptions = 'access-denied';
    },
  };
});
