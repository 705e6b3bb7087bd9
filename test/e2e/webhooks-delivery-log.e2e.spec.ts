import { Client } from '@hubspot/api-client';
import { Signature } from '@hubspot/api-client/lib/src/utils/signature';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ManualClock } from '../support/manual-clock';
import { installAndExchange, oauthFixture, refresh, type OAuthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { DeliveryThread } from '../../src/app-webhooks/delivery-thread/delivery-thread';

/**
 * The delivery log over attempt events that name their items instead of holding the body: the log
 * gives back the exact bytes each request sent (the signatures check against them), and delivered
 * items leave the log once past the retention (WEBHOOK_RETENTION_DAYS, on the service's clock) while
 * the history keeps every attempt. Every wait is for a request or a read-model state, bounded.
 */
let t: TestApp;
let receiver: WebhookReceiver;
const DAY_MS = 86_400_000;

beforeEach(async () => {
  // Real time at the start: Signature.isValid refuses v3 timestamps more than 5 minutes off.
  t = await startTestApp({
    listen: true,
    clock: new ManualClock(Date.now()),
    env: { WEBHOOK_POLL_MS: '20', WEBHOOK_RETENTION_DAYS: '30' },
  });
  receiver = await new WebhookReceiver().start();
});

afterEach(async () => {
  await receiver.stop();
  await t.close();
});

interface Fixture {
  f: OAuthFixture;
  crm: Client;
  refreshToken: string;
  appId: number;
}

async function webhookApp(): Promise<Fixture> {
  const f = await oauthFixture(t, {
    requiredScopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'],
    optionalScopes: [],
  });
  const key = (await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`)).json() as {
    developerApiKey: string;
  };
  const tokens = await installAndExchange(t, f);
  const dev = new Client({ developerApiKey: key.developerApiKey, basePath: t.url });
  await dev.webhooks.settingsApi.configure(f.appId, {
    targetUrl: receiver.url,
    throttling: { maxConcurrentRequests: 10 },
  });
  await dev.webhooks.subscriptionsApi.create(f.appId, { eventType: 'contact.creation' as never, active: true });
  return {
    f,
    appId: f.appId,
    refreshToken: tokens.refresh_token,
    crm: new Client({ accessToken: tokens.access_token, basePath: t.url }),
  };
}

/** Days pass on the service's clock; the access token aged with them: a fresh one. */
async function daysPass(x: Fixture, ms: number): Promise<void> {
  t.clock.advance(ms);
  const fresh = await refresh(t, x.f, x.refreshToken);
  expect(fresh.statusCode).toBe(200);
  x.crm = new Client({ accessToken: (fresh.json() as { access_token: string }).access_token, basePath: t.url });
}

interface LoggedDelivery {
  id: string;
  eventId: number;
  objectId: number;
  status: string;
  attemptLog: {
    requestId: string;
    attemptNumber: number;
    request: { headers: Record<string, string>; body: string };
    response: { statusCode: number | null };
  }[];
}

async function deliveries(appId: number): Promise<LoggedDelivery[]> {
  const r = await t.admin('GET', `/admin/v1/apps/${appId}/webhook-deliveries?limit=100`);
  expect(r.statusCode).toBe(200);
  return (r.json() as { results: LoggedDelivery[] }).results;
}

/** Polls the log (a read model) until `done` holds, at most 5 s. */
async function logUntil(appId: number, done: (log: LoggedDelivery[]) => boolean): Promise<LoggedDelivery[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const log = await deliveries(appId);
    if (done(log)) return log;
    if (Date.now() > deadline) throw new Error(`delivery log: ${JSON.stringify(log).slice(0, 2000)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const createContacts = (x: Fixture, emails: string[]) =>
  x.crm.crm.contacts.batchApi.create({
    inputs: emails.map((email) => ({ properties: { email }, associations: [] })),
  });

describe('the delivery log', () => {
  it('gives back the exact body of every request (rebuilt from its items), which its signatures sign', async () => {
    const x = await webhookApp();
    await createContacts(x, ['a@example.com', 'b@example.com', 'c@example.com']);
    await receiver.waitFor(() => receiver.items().length === 3, 'three creations');
    const first = await logUntil(x.appId, (log) => log.filter((d) => d.status === 'delivered').length === 3);
    const target = first[1]!;
    expect(
      (await t.admin('POST', `/admin/v1/apps/${x.appId}/webhook-deliveries/${target.id}/redeliver`)).statusCode,
    ).toBe(202);
    await receiver.waitForItems((i) => i.eventId === target.eventId && i.attemptNumber === 1, 1, 'the redelivery');
    const log = await logUntil(x.appId, (l) => l.find((d) => d.id === target.id)!.attemptLog.length === 2);

    const sent = new Map(receiver.requests.map((r) => [r.body, r]));
    const logged = log.flatMap((d) => d.attemptLog);
    expect(logged).toHaveLength(4);
    expect(new Set(logged.map((a) => a.request.body)).size).toBe(receiver.requests.length);
    for (const attempt of logged) {
      // Byte for byte what the receiver got, with the headers it got.
      const request = sent.get(attempt.request.body);
      expect(request).toBeDefined();
      expect(request!.headers['x-hubspot-signature']).toBe(attempt.request.headers['X-HubSpot-Signature']);
      expect(
        Signature.isValid({
          signatureVersion: 'v1',
          signature: attempt.request.headers['X-HubSpot-Signature']!,
          clientSecret: x.f.clientSecret,
          requestBody: attempt.request.body,
        }),
      ).toBe(true);
    }
    const redelivered = log.find((d) => d.id === target.id)!.attemptLog[1]!;
    expect(JSON.parse(redelivered.request.body)).toEqual([
      expect.objectContaining({ eventId: target.eventId, attemptNumber: 1 }),
    ]);
    // The attempt events hold no body: the items they name, in the body's order.
    const attempts = await t.app
      .get<EventStore>(EVENT_STORE)
      .readAll({ after: 0, limit: 100, type: 'webhooks.DeliveryAttempted' });
    expect(attempts).toHaveLength(receiver.requests.length);
    for (const e of attempts) {
      const data = JSON.parse(JSON.stringify(e.data)) as Record<string, unknown>;
      expect(data).not.toHaveProperty('requestBody');
    }
  });
});

describe('retention', () => {
  it('delivered items past WEBHOOK_RETENTION_DAYS leave the log; failed ones and the history stay', async () => {
    const x = await webhookApp();
    const refused = { objectId: 0 };
    receiver.answer = (r) => (r.items.some((i) => i.objectId === refused.objectId) ? { status: 404 } : { status: 204 });
    await createContacts(x, ['old-1@example.com', 'old-2@example.com']);
    await receiver.waitFor(() => receiver.items().length === 2, 'two creations');
    refused.objectId = Number((await createContacts(x, ['refused@example.com'])).results[0]!.id);
    await logUntil(x.appId, (log) => log.length === 3 && log.every((d) => d.status !== 'pending'));

    // 29 days on: nothing is old enough yet.
    await daysPass(x, 29 * DAY_MS);
    const recent = Number((await createContacts(x, ['recent@example.com'])).results[0]!.id);
    await logUntil(x.appId, (log) => log.some((d) => d.objectId === recent && d.status === 'delivered'));
    expect(await deliveries(x.appId)).toHaveLength(4);

    // Past 30 days for the first two: they go, with their request; the failed one and the recent stay.
    await daysPass(x, DAY_MS + 60_000);
    const log = await logUntil(x.appId, (l) => l.length === 2);
    expect(log.map((d) => [d.objectId, d.status])).toEqual([
      [refused.objectId, 'failed'],
      [recent, 'delivered'],
    ]);
    const store = t.app.get<EventStore>(EVENT_STORE);
    const pruned = await store.readAll({ after: 0, limit: 10, type: 'webhooks.DeliveriesPruned' });
    expect(pruned.map((e) => e.data)).toEqual([
      expect.objectContaining({ appId: x.appId, deliveredBefore: t.clock.now() - 30 * DAY_MS }),
    ]);
    // The history keeps every attempt; a rebuild of the read model prunes at the same point.
    expect(await store.readAll({ after: 0, limit: 10, type: 'webhooks.DeliveryAttempted' })).toHaveLength(3);
    await t.app.get(DeliveryThread).rebuild();
    expect(await deliveries(x.appId)).toEqual(log);
  });
});
