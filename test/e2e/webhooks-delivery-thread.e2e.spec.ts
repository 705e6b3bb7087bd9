import { Client } from '@hubspot/api-client';
import { readdirSync, readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { DeliveryThread } from '../../src/app-webhooks/delivery-thread/delivery-thread';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ManualClock } from '../support/manual-clock';
import { contactCreationWebhooks, installAndExchange, oauthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Where the deliveries run (docs/webhooks.md "Where the work runs"): the outbox read model and the
 * dispatcher on a thread of their own, started only once an app has webhook settings, with the
 * outbox's event types kept live for it; a thread that dies is started again and picks up where
 * its checkpoint is (at least once). Every wait is for a request or a state, bounded.
 */
let t: TestApp;
let receiver: WebhookReceiver;
/** The service's clock, injected: it stands still, so what it dated is told apart from real time. */
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  t = await startTestApp({ listen: true, clock, env: { WEBHOOK_POLL_MS: '20' } });
  receiver = await new WebhookReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

const SCOPES = ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'];

/** Resolves once `check()` holds (looked at once per turn of the event loop), at most 10 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** What `read` gives once `holds` says so (read once per turn of the event loop), at most 10 s. */
async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the webhooks delivery thread', () => {
  it('starts with the first settings, runs the outbox apart from the API’s read models, and comes back after dying', async () => {
    const thread = t.app.get(DeliveryThread);
    const runner = t.app.get(ProjectionRunner);
    const f = await oauthFixture(t, { requiredScopes: SCOPES, optionalScopes: [] });
    const tokens = await installAndExchange(t, f);
    const crm = new Client({ accessToken: tokens.access_token, basePath: t.url });
    await crm.crm.contacts.basicApi.create({ properties: { email: 'before@example.com' }, associations: [] });

    // No app has settings: no thread, and the API's runner has no outbox of its own.
    expect(await thread.status()).toEqual([]);
    const names = runner.status().map((s) => s.name);
    expect(names).toContain('webhooks-settings');
    expect(names).not.toContain('webhooks-outbox');
    expect(names).not.toContain('webhooks-dispatcher');
    // What the thread reads stays live for it (the archiver leaves those streams).
    expect([...runner.handledTypes()]).toEqual(
      expect.arrayContaining(['webhooks.DeliveryAttempted', 'oauth.AppInstalled', 'crm.RecordCreated']),
    );

    await contactCreationWebhooks(t, f, receiver.url, 2);
    const first = await crm.crm.contacts.basicApi.create({
      properties: { email: 'first@example.com' },
      associations: [],
    });
    await receiver.waitForItems((i) => i.objectId === Number(first.id), 1, 'the first creation');
    expect(receiver.items().map((i) => i.objectId)).toEqual([Number(first.id)]); // nothing from before
    // The thread appended the attempt itself (through its port to the store's writer thread), dated
    // by the service's clock as the API's thread read it (the injected one).
    const store = t.app.get<EventStore>(EVENT_STORE);
    const attempts = () => store.readAll({ after: 0, limit: 100, type: 'webhooks.DeliveryAttempted' });
    const recorded = await eventually(attempts, (found) => found.length > 0, 'the first attempt recorded');
    expect(recorded.map((e) => [e.metadata.actor, e.metadata.occurredAt, e.streamId])).toEqual([
      ['system:webhooks-dispatcher', clock.now(), expect.stringMatching(new RegExp(`^webhooks\\.request-${f.appId}-`))],
    ]);
    expect((await thread.status()).map((s) => [s.name, s.status])).toEqual(
      expect.arrayContaining([
        ['webhooks-outbox', 'running'],
        ['webhooks-dispatcher', 'running'],
      ]),
    );
    // Below the API's event loop in CPU priority (Linux keeps a nice value per thread), and only it:
    // the API's thread and every other thread of the process (libuv's pool, V8's) keep theirs.
    if (process.platform === 'linux') {
      const niceOf = (tid: string) =>
        Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      const expected = Math.max(10, niceOf(String(process.pid))); // a run under `nice` keeps its lower priority
      const priority = thread.priority as { tid: number; nice: number };
      expect(priority).toEqual({ tid: expect.any(Number), nice: expected });
      const others = readdirSync('/proc/self/task').filter((tid) => tid !== String(priority.tid));
      expect(niceOf(String(priority.tid))).toBe(expected);
      expect(others.length).toBeGreaterThan(1);
      expect(new Set(others.map(niceOf))).toEqual(new Set([niceOf(String(process.pid))]));
    }
    // The API's runner lists them too (so /health/ready does), as reactors: they may trail the feed.
    const listed = () =>
      runner.status().filter((s) => s.name === 'webhooks-outbox' || s.name === 'webhooks-dispatcher');
    await until(() => listed().length === 2 && listed().every((s) => s.status === 'running'), 'the thread reported');
    expect(listed().map((s) => s.kind)).toEqual(['reactor', 'reactor']);

    // The thread dies (as an uncaught error would end it): started again, it goes on from its checkpoint.
    const worker = (thread as unknown as { worker: Worker }).worker;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await worker.terminate();
    await exited;
    // Down: failed in the runner's list (a 503 from /health/ready) until the thread is back.
    expect(listed().map((s) => [s.status, s.error])).toEqual([
      ['failed', 'the delivery thread exited with code 1'],
      ['failed', 'the delivery thread exited with code 1'],
    ]);
    const second = await crm.crm.contacts.basicApi.create({
      properties: { email: 'second@example.com' },
      associations: [],
    });
    await receiver.waitForItems((i) => i.objectId === Number(second.id), 1, 'the creation after the restart', 10_000);
    await until(() => listed().every((s) => s.status === 'running'), 'the thread running again');
    const log = t.admin('GET', `/admin/v1/apps/${f.appId}/webhook-deliveries`);
    expect(((await log).json() as { results: { objectId: number; status: string }[] }).results).toEqual([
      expect.objectContaining({ objectId: Number(first.id), status: 'delivered' }),
      expect.objectContaining({ objectId: Number(second.id) }),
    ]);
    // The restarted thread appends through a port of its own: its attempt is recorded too.
    const both = await eventually(attempts, (found) => found.length === 2, 'the second attempt recorded');
    expect(both.map((e) => e.metadata.actor)).toEqual(['system:webhooks-dispatcher', 'system:webhooks-dispatcher']);
  });
});
