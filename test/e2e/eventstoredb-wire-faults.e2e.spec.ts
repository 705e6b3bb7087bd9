import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { processFaults } from '../../src/platform/core/process-faults';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { EsdbStandIn, type AppendFault } from '../support/esdb-standin/server';
import { newEvent } from '../support/event-store-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

/*
 * docs/operations.md's "Faults" promises for EventStoreDB, each caused at the wire: the real
 * @eventstore/db-client 6.2.1 and our adapter over gRPC against the EventStoreDB stand-in
 * (test/support/esdb-standin, a server that speaks EventStoreDB's protocol, not EventStoreDB).
 * Also the two client-internal risks of 6.2.1's batch-append stream, reproduced with a bare
 * client, and shown not to reach the service.
 */

/** Polls until `check` holds, at most `ms` (a bounded wait, no fixed sleep). */
async function until(check: () => boolean | Promise<boolean>, ms = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The client's deadline on a call (ms): short, so that a held answer is past it. */
const DEADLINE_MS = 300;

jest.setTimeout(30_000);

describe('EventStoreDB faults at the wire (stand-in, real client, our adapter)', () => {
  let standIn: EsdbStandIn;
  let connectionString: string;
  const apps: TestApp[] = [];
  const stores: EventStoreDbEventStore[] = [];

  beforeEach(async () => {
    standIn = new EsdbStandIn();
    connectionString = `${await standIn.start()}&defaultDeadline=${DEADLINE_MS}`;
  });
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
    for (const s of stores.splice(0)) await s.close();
    await standIn.stop();
  });

  const store = () => {
    const s = new EventStoreDbEventStore(connectionString, {
      appendRetryDelayMs: 10,
      backoff: { initialMs: 10, maxMs: 100 },
    });
    stores.push(s);
    return s;
  };
  const service = async () => {
    const t = await startTestApp({ eventStore: store() });
    stores.pop(); // the app closes its store
    apps.push(t);
    return t;
  };
  let domains = 0;
  const createAccount = (t: TestApp) =>
    t.admin('POST', '/admin/v1/accounts', { domain: `wire-${domains++}.example.com`, tier: 'starter' });
  /** Types of the records the log gained while `work` ran (system records left out). */
  const recordsOf = async (work: () => Promise<unknown>) => {
    const before = standIn.log.records.length;
    const result = await work();
    return {
      result,
      types: standIn.log.records
        .slice(before)
        .map((r) => r.type)
        .filter((t) => !t.startsWith('$')),
    };
  };

  describe('a resend of an append whose outcome is unknown answers with the original result and stores nothing twice', () => {
    const faults: AppendFault[] = [
      { kind: 'drop-before-commit' },
      { kind: 'drop-after-commit' },
      { kind: 'hold', ms: DEADLINE_MS * 3 },
      { kind: 'unavailable' },
      { kind: 'not-leader' },
    ];
    it.each(faults.map((f) => [f.kind, f] as const))('%s', async (_kind, fault) => {
      const t = await service();
      const sends = () => standIn.calls.get('Streams.Append') ?? 0;
      const cleanFrom = sends();
      const clean = await recordsOf(() => createAccount(t));
      expect((clean.result as { statusCode: number }).statusCode).toBe(201);
      const cleanSends = sends() - cleanFrom;
      const sentBefore = sends();
      standIn.appendFaults.push(fault);
      const faulted = await recordsOf(() => createAccount(t));
      const r = faulted.result as { statusCode: number; json(): { hubId: number } };
      expect(r.statusCode).toBe(201);
      expect(standIn.appendFaults).toEqual([]); // the fault did strike
      expect(sends() - sentBefore).toBe(cleanSends + 1); // one append was sent again
      // The same records as a request without a fault: none twice, none missing.
      expect(faulted.types.sort()).toEqual(clean.types.sort());
      expect((await t.admin('GET', `/admin/v1/accounts/${r.json().hubId}`)).statusCode).toBe(200);
    });
  });

  it('an append with no answer at all answers 503 with Retry-After and HubSpot error body', async () => {
    const t = await service();
    for (let i = 0; i < 4; i++) standIn.appendFaults.push({ kind: 'hold', ms: DEADLINE_MS * 3 });
    const r = await createAccount(t);
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(r.json()).toMatchObject({ status: 'error', category: 'SERVICE_UNAVAILABLE' });
    expect(r.json().correlationId).toEqual(expect.any(String));
    expect(standIn.appendFaults).toEqual([]);
  });

  it('a dropped subscription resumes from its last event or a checkpoint past it, losing and repeating nothing', async () => {
    const s = store();
    const subscription = s.subscribeToAll(await s.headPosition());
    const received: RecordedEvent[] = [];
    // Pulled all along, as a projection does: the feed resubscribes while its reader waits.
    const pump = (async () => {
      for await (const batch of subscription) received.push(...batch.filter((e) => e.streamId.startsWith('resume-')));
    })();
    const receive = (count: number) => until(() => received.length >= count, 5000, `${count} events received`);
    const a = await s.append('resume-a', [newEvent('t.A', {})], 'no_stream');
    await receive(1);
    // 40 system records after A: the filter leaves them out and sends a checkpoint past A.
    for (let i = 0; i < 40; i++) {
      standIn.log.append(
        '$stats-standin',
        [
          {
            id: crypto.randomUUID(),
            type: '$statsCollected',
            contentType: 'application/json',
            data: Buffer.from('{}'),
            metadata: Buffer.alloc(0),
          },
        ],
        { kind: 'any' },
      );
    }
    const starts = standIn.subscriptionStarts.length;
    expect(standIn.endSubscriptions('complete')).toBe(1);
    await until(() => standIn.subscriptionStarts.length > starts, 5000, 'resubscribe');
    // Resumed from the checkpoint, not from A: the 32 system records before it are not scanned again.
    expect(standIn.subscriptionStarts.at(-1)).toBeGreaterThan(a.position);

    const b = await s.append('resume-b', [newEvent('t.B', {})], 'no_stream');
    await receive(2);
    standIn.endSubscriptions('unavailable');
    await until(() => standIn.subscriptionStarts.length > starts + 1, 5000, 'resubscribe after UNAVAILABLE');
    expect(standIn.subscriptionStarts.at(-1)).toBe(b.position); // from its last event

    await standIn.restart();
    await s.append('resume-c', [newEvent('t.C', {})], 'no_stream');
    await receive(3);
    subscription.close();
    await pump;
    expect(received.map((e) => e.streamId)).toEqual(['resume-a', 'resume-b', 'resume-c']);
  });

  it('a subscription refused for good stops the read models and /health/ready answers 503 with the reason', async () => {
    standIn.refuseSubscriptions = 'access-denied';
    const t = await service();
    let ready = await t.admin('GET', '/health/ready');
    await until(async () => {
      ready = await t.admin('GET', '/health/ready');
      return ready.statusCode === 503 && Object.keys(ready.json().error?.projections?.reasons ?? {}).length > 0;
    });
    const reasons = Object.values(ready.json().error.projections.reasons as Record<string, string>);
    for (const reason of reasons) expect(reason).toMatch(/Access denied/);
  });

  describe("6.2.1's batch-append stream", () => {
    const poison = (streamId: string) => streamId.startsWith('poison-');

    it('reproduced: one error on the shared stream fails every append waiting on it (bare client)', async () => {
      const client = EventStoreDBClient.connectionString(connectionString);
      try {
        standIn.holdReplies = true;
        standIn.poisonStreams = poison;
        const innocent = Array.from({ length: 10 }, (_, i) =>
          client.appendToStream(`innocent-${i}`, jsonEvent({ type: 't.Innocent', data: { i } })),
        );
        await until(() => standIn.heldAppends === 10, 5000, '10 appends waiting');
        const poisoned = client.appendToStream('poison-1', jsonEvent({ type: 't.Poison', data: {} }));
        const outcomes = await Promise.allSettled([...innocent, poisoned]);
        expect(standIn.calls.get('Streams.BatchAppend')).toBe(1);
        expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
      } finally {
        await client.dispose();
      }
    });

    it('the adapter: a poisoned append fails alone; the appends waiting beside it succeed at their first send', async () => {
      const s = store();
      standIn.holdReplies = true;
      standIn.poisonStreams = poison;
      const innocent = Array.from({ length: 10 }, (_, i) =>
        s.append(`innocent-${i}`, [newEvent('t.Innocent', { i })], 'no_stream'),
      );
      await until(() => standIn.heldAppends === 10, 5000, '10 appends waiting');
      const poisoned = s.append('poison-1', [newEvent('t.Poison', {})], 'no_stream');
      const outcomes = await Promise.allSettled(innocent);
      expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('fulfilled'));
      for (let i = 0; i < 10; i++) expect(standIn.appendsPerStream.get(`innocent-${i}`)).toBe(1);
      await expect(poisoned).rejects.toThrow();
    });

    it('reproduced: a late reply after a reconnect crashes a process using the bare client', async () => {
      standIn.holdReplies = true;
      standIn.lateReplyAfterReconnect = true;
      const child = spawn(
        process.execPath,
        [join(__dirname, '..', 'support', 'esdb-late-reply-child.cjs'), connectionString],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      try {
        await until(() => standIn.heldAppends === 3, 10_000, '3 appends waiting');
        // The held appends stay unanswered on the dropped call; new ones go through.
        standIn.dropConnections();
        standIn.holdReplies = false;
        const code = await exited;
        expect(out).toContain('first appends: rejected,rejected,rejected');
        expect(out).not.toContain('survived');
        expect(out).toMatch(/TypeError/);
        expect(code).not.toBe(0);
      } finally {
        clearTimeout(timer);
        child.kill('SIGKILL');
      }
    });

    it('the service: appends cut off by a reconnect are resent and answered; no late reply reaches it; it stays ready', async () => {
      const t = await service();
      expect((await t.admin('GET', '/health/ready')).statusCode).toBe(200);
      standIn.holdReplies = true;
      standIn.lateReplyAfterReconnect = true;
      const creates = [createAccount(t), createAccount(t), createAccount(t)];
      await until(() => standIn.heldAppends === 3, 5000, '3 appends waiting');
      standIn.dropConnections();
      standIn.holdReplies = false;
      expect((await Promise.all(creates)).map((r) => r.statusCode)).toEqual([201, 201, 201]);
      expect((await createAccount(t)).statusCode).toBe(201);
      expect(standIn.calls.get('Streams.BatchAppend') ?? 0).toBe(0);
      expect(processFaults.reason()).toBeNull();
      expect((await t.admin('GET', '/health/ready')).statusCode).toBe(200);
    });
  });
});

describe('EventStoreDB retention at the wire (stand-in, real client, our adapter)', () => {
  let standIn: EsdbStandIn;
  beforeEach(() => (standIn = new EsdbStandIn()));
  afterEach(() => standIn.stop());

  it('sets $tb on an archived stream so reads skip its archived events, without the shared batch-append stream', async () => {
    const s = new EventStoreDbEventStore(await standIn.start(), { appendRetryDelayMs: 10 });
    try {
      await s.append('archived-stream', [newEvent('t.A', {}), newEvent('t.B', {}), newEvent('t.C', {})], 'no_stream');
      await s.retention!.appendRemovingArchived(
        'ops.history-archive-wire',
        [newEvent('ops.HistoryArchived', {})],
        'no_stream',
        {
          purge: [],
          streams: [{ streamId: 'archived-stream', lastRevision: 1 }],
        },
      );
      expect((await s.readStream('archived-stream')).map((e) => e.type)).toEqual(['t.C']);
      // The metadata write too is its own call: 6.2.1's batch-append stream is never opened.
      expect(standIn.calls.get('Streams.BatchAppend') ?? 0).toBe(0);
    } finally {
      await s.close();
    }
  });
});
