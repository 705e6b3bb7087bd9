/**
 * The delivery thread's own code (started by delivery-thread.ts through startModuleThread): the
 * `webhooks-outbox` read model in a file of its own, tailing the feed on its own connection, and
 * the dispatcher that sends from it, appending what it records itself (on SQLite through its port
 * to the store's writer thread, on EventStoreDB on its own connection). The installs' clocks it reads
 * from its own feed, the system clock itself; what only the API's thread holds (a test's clock, the
 * keys that open the client secrets) it asks there, the secrets once until they change. No framework
 * here: the thread's heap holds this module's graph only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { associationEvents } from '../../crm-associations/crm-associations.events';
import { crmRecordsEvents } from '../../crm-records/crm-records.events';
import { directoryEvents } from '../../directory/directory.events';
import { installClockEvents, oauthEvents } from '../../oauth/oauth.events';
import type { FeedReader, StreamStore } from '../../platform/event-store/event-store.port';
import { SqliteFeedReader } from '../../platform/event-store/sqlite-feed-reader';
import { SqliteThreadStore } from '../../platform/event-store/sqlite-thread-store';
import { eventTypes } from '../../platform/events/event-type-registry';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { closeReadModelDatabase, openReadModelDatabase } from '../../platform/projections/read-model-database';
import { lowerThreadPriority } from '../../platform/threads/thread-priority';
import { ThreadRpc } from '../../platform/threads/thread-rpc';
import { DispatcherCommands } from '../application/dispatcher-commands';
import { DispatchLeases } from '../application/dispatch-leases';
import { OutboxQueries } from '../application/outbox-queries';
import { WebhookDispatcher } from '../application/webhook-dispatcher';
import { webhooksEvents } from '../domain/webhook-events';
import { WebhookInstallClocksProjection } from '../projections/webhook-install-clocks.projection';
import { WEBHOOK_OUTBOX_PROJECTION, WebhookOutboxProjection } from '../projections/webhook-outbox.projection';
import { SigningSecretCache } from './signing-secret-cache';
import type { DeliveryThreadData, DispatcherBridge, OutboxRead } from './thread-protocol';

const data = (workerData as { data: DeliveryThreadData }).data;
/** How often the thread's workers' status is sent to the API's thread. */
const STATUS_EVERY_MS = 1000;
const port = parentPort!;
// Deliveries are background work (due within seconds): when the API's event loop and this thread
// both want a core, the loop goes first (issue 42: the API's p99 unchanged while delivering).
const priority = lowerThreadPriority(data.webhooks.threadNice);

for (const definitions of [
  webhooksEvents,
  crmRecordsEvents,
  associationEvents,
  oauthEvents,
  installClockEvents,
  directoryEvents,
])
  eventTypes.register(definitions);

const rpc = new ThreadRpc(port, {
  read: async (read: OutboxRead) => {
    // Read-your-writes for the API's thread (a redelivery it appended), bounded: never a request held for ever.
    await runner.readModelsReached(read.reached);
    return read.kind === 'deliveries'
      ? queries.deliveries(read.appId, read.filter)
      : queries.delivery(read.appId, read.eventId);
  },
  rebuild: () => runner.rebuild(WEBHOOK_OUTBOX_PROJECTION),
  status: () => runner.status(),
  stop: async () => {
    stopped = true;
    if (commits) {
      Atomics.add(commits, 0, 1);
      Atomics.notify(commits, 0);
    }
    await dispatcher.stop();
    await runner.stop();
    closeReadModelDatabase(db);
    await feed.close();
  },
});

const installClocks = new WebhookInstallClocksProjection();
const secrets = new SigningSecretCache((appId, reached) => rpc.call('secret', { appId, reached }));
const bridge: DispatcherBridge = {
  execute: (command) => commands.execute(command),
  now: data.systemClock ? () => Promise.resolve(Date.now()) : () => rpc.call('now'),
  installOffsetMs: (appId, hubId) => installClocks.offsetMs(appId, hubId),
  secret: (appId) => secrets.secret(appId),
  log: (level, message) => rpc.notify('log', { level, message }),
};

/** The feed this thread reads and the streams it appends to. */
function openStore(): FeedReader & StreamStore & { close(): unknown } {
  if (data.feed.kind === 'sqlite') {
    if (!data.writer) throw new Error('the delivery thread was started without a port to the writer thread');
    return new SqliteThreadStore(data.feed.file, data.writer);
  }
  // Loaded only for EventStoreDB: its client and gRPC, as on the API's thread (create-event-store.ts).
  const { EventStoreDbEventStore } =
    require('../../platform/event-store/eventstoredb-event-store') as typeof import('../../platform/event-store/eventstoredb-event-store');
  return new EventStoreDbEventStore(data.feed.connectionString, {
    onSubscriptionError: (error, retryInMs) =>
      bridge.log(
        retryInMs === null ? 'error' : 'warn',
        `delivery thread: subscription to $all ${retryInMs === null ? 'failed for good' : 'dropped'}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      ),
  });
}

const feed = openStore();
const commands = new DispatcherCommands(feed);
let stopped = false;

/** ES2024's Atomics.waitAsync (Node has it; this project's TypeScript lib predates it). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<string> | string };
  }
).waitAsync;

/** SQLite: each bump of the shared commit counter wakes the feed's subscriptions. */
async function followCommits(counter: Int32Array, reader: SqliteFeedReader): Promise<void> {
  let seen = Atomics.load(counter, 0);
  while (!stopped) {
    const wait = waitAsync(counter, 0, seen);
    if (wait.async) await wait.value;
    seen = Atomics.load(counter, 0);
    if (!stopped) reader.committed();
  }
}
const commits = data.commits ? new Int32Array(data.commits) : null;
if (commits && feed instanceof SqliteFeedReader) void followCommits(commits, feed);
const db = openReadModelDatabase(data.outboxFile, {
  warn: (message) => bridge.log('warn', `delivery thread: ${message}`),
});
const runner = new ProjectionRunner(feed, db, {
  log: (message) => bridge.log('log', `delivery thread: ${message}`),
  error: (message) => bridge.log('error', `delivery thread: ${message}`),
});
const queries = new OutboxQueries(db);
const monotonic = { elapsedMs: () => performance.now() };

const leases = new DispatchLeases(bridge, runner, data.feed.kind === 'eventstoredb', monotonic, data.webhooks);
const dispatcher = new WebhookDispatcher(queries, runner, bridge, leases, monotonic, data.webhooks);
runner.register(new WebhookOutboxProjection());
runner.register(installClocks);
runner.registerReactor(secrets);
runner.registerReactor(dispatcher);
runner.start();
if (data.webhooks.enabled) dispatcher.start();
rpc.notify('started', priority);
// The API's thread lists these in /health/ready: a failed outbox or dispatcher shows there.
const reportStatus = () => rpc.notify('status', runner.status());
reportStatus();
setInterval(reportStatus, STATUS_EVERY_MS).unref();
