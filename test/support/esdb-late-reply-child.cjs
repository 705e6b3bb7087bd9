// A bare @eventstore/db-client 6.2.1 (no per-call credentials, so appends share its batch-append
// stream) in a process of its own, for the late-reply-after-reconnect reproduction in
// test/e2e/eventstoredb-wire-faults.e2e.spec.ts: the test holds these appends at the EventStoreDB
// stand-in, drops the connection, and the next batch-append stream receives a reply for one of
// them. Prints what it saw; exits 0 only when it survived.
const { EventStoreDBClient, jsonEvent } = require('@eventstore/db-client');

const client = EventStoreDBClient.connectionString(process.argv[2]);
const append = (stream) => client.appendToStream(stream, jsonEvent({ type: 't.LateReply', data: {} }));

(async () => {
  const first = await Promise.allSettled([append('late-1'), append('late-2'), append('late-3')]);
  process.stdout.write(`first appends: ${first.map((r) => r.status).join(',')}\n`);
  await append('after-reconnect-1');
  await append('after-reconnect-2');
  process.stdout.write('survived\n');
  await client.dispose();
})().catch((error) => {
  process.stdout.write(`rejected: ${error && error.message}\n`);
  process.exitCode = 3;
});
