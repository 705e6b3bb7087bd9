import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { EsdbStandIn } from '../support/esdb-standin/server';
import { newEvent } from '../support/event-store-fixtures';

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

describe('npm run esdb:standin', () => {
  it('prints one line, its connection string, serves EventStoreDB clients, and ends on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(__dirname, '..', '..', 'scripts', 'esdb-standin.mjs'), '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      let out = '';
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', () => reject(new Error(`exited before printing: ${err}`)));
      });
      expect(line).toMatch(/^esdb:\/\/127\.0\.0\.1:\d+\?tls=false\n$/);
      const store = new EventStoreDbEventStore(line.trim());
      try {
        const result = await store.append('cli-check', [newEvent('t.Cli', {})], 'no_stream');
        expect((await store.readStream('cli-check')).map((e) => e.position)).toEqual([result.position]);
      } finally {
        await store.close();
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toBe(line); // nothing else on stdout
      expect(err).toBe('');
    } finally {
      clearTimeout(timer);
      child.kill('SIGKILL');
    }
  }, 40_000);
});
