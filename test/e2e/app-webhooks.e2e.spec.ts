import { Client } from '@hubspot/api-client';
import { Signature } from '@hubspot/api-client/lib/src/utils/signature';
import { ManualClock } from '../support/manual-clock';
import { installAndExchange, oauthFixture, refresh, type OAuthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';
import { closedPort, WebhookReceiver } from '../support/webhook-receiver';
import { DeliveryThread } from '../../src/app-webhooks/delivery-thread/delivery-thread';

/**
 * App webhooks end to end: @hubspot/api-client v14's webhooks APIs with the developer key, then
 * CRM changes made with crm.contacts reaching a receiver on 127.0.0.1, signed as Signature.isValid
 * checks, with HubSpot's payload, batching, concurrency and retries (on the install's clock).
 * Every wait is for a request or a read-model state, bounded; none is a sleep.
 */
let t: TestApp;
let receiver: WebhookReceiver;

const SCOPES = [
  'oauth',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.deals.read',
  'crm.objects.deals.write',
];

beforeAll(async () => {
  // Real time: Signature.isValid refuses v3 timestamps more than 5 minutes from Date.now().
  t = await startTestApp({
    listen: true,
    clock: new ManualClock(Date.now()),
    env: { WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_POLL_MS: '20' },
  });
});

afterAll(async () => {
  await t?.close();
});

beforeEach(async () => {
  receiver = await new WebhookReceiver().start();
});

afterEach(async () => {
  await receiver.stop();
});

interface Fixture {
  f: OAuthFixture;
  dev: Client;
  crm: Client;
  refreshToken: string;
  appId: number;
}

async function webhookApp(scopes = SCOPES): Promise<Fixture> {
  const f = await oauthFixture(t, { requiredScopes: scopes, optionalScopes: [] });
  const key = (await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`)).json() as {
    developerApiKey: string;
  };
  const tokens = await installAndExchange(t, f);
  return {
    f,
    appId: f.appId,
    dev: new Client({ developerApiKey: key.developerApiKey, basePath: t.url }),
    crm: new Client({ accessToken: tokens.access_token, basePath: t.url }),
    refreshToken: tokens.refresh_token,
  };
}

async function subscribe(x: Fixture, eventType: string, propertyName?: string, url = receiver.url, max = 10) {
  await x.dev.webhooks.settingsApi.configure(x.appId, { targetUrl: url, throttling: { maxConcurrentRequests: max } });
  return x.dev.webhooks.subscriptionsApi.create(x.appId, {
    eventType: eventType as never,
    ...(propertyName ? { propertyName } : {}),
    active: true,
  });
}

async function advanceInstall(x: Fixture, seconds: number): Promise<void> {
  const r = await t.admin('POST', `/admin/v1/accounts/${x.f.hubId}/installs/${x.appId}/clock`, {
    advanceSeconds: seconds,
  });
  expect(r.statusCode).toBe(200);
  // The install's access tokens age with its clock: a fresh one from the refresh grant.
  const fresh = await refresh(t, x.f, x.refreshToken);
  expect(fresh.statusCode).toBe(200);
  x.crm = new Client({ accessToken: (fresh.json() as { access_token: string }).access_token, basePath: t.url });
}

async function deliveries(appId: number, query = '') {
  const r = await t.admin('GET', `/admin/v1/apps/${appId}/webhook-deliveries${query}`);
  expect(r.statusCode).toBe(200);
  return r.json() as {
    results: {
      id: string;
      eventId: number;
      status: string;
      attempts: number;
      nextAttemptAt: number | null;
      objectId: number;
      subscriptionId: number;
      attemptLog: { attemptNumber: number; response: { statusCode: number | null; error: string | null } }[];
    }[];
    paging?: { next: { after: string } };
  };
}

const createContact = (x: Fixture, properties: Record<string, string>) =>
  x.crm.crm.contacts.basicApi.create({ properties, associations: [] });

describe('settings and subscriptions with @hubspot/api-client v14 (developer key)', () => {
  it('configure, getAll, clear; create, getAll, getById, update, updateBatch, archive', async () => {
    const x = await webhookApp();
    const { settingsApi, subscriptionsApi } = x.dev.webhooks;
    const configured = await settingsApi.configure(x.appId, {
      targetUrl: receiver.url,
      throttling: { maxConcurrentRequests: 7 },
    });
    expect(configured).toMatchObject({ targetUrl: receiver.url, throttling: { maxConcurrentRequests: 7 } });
    expect(configured.createdAt).toBeInstanceOf(Date);
    expect(await settingsApi.getAll(x.appId)).toMatchObject({ targetUrl: receiver.url });

    const created = await subscriptionsApi.create(x.appId, {
      eventType: 'contact.propertyChange' as never,
      propertyName: 'firstname',
    });
    expect(created).toMatchObject({
      eventType: 'contact.propertyChange' as never,
      propertyName: 'firstname',
      active: false,
    });
    const second = await subscriptionsApi.create(x.appId, { eventType: 'contact.creation' as never, active: true });
    expect((await subscriptionsApi.getAll(x.appId)).results.map((s) => s.id)).toEqual([created.id, second.id]);
    expect(await subscriptionsApi.getById(Number(created.id), x.appId)).toMatchObject({
      id: created.id,
      active: false,
    });
    expect(await subscriptionsApi.update(Number(created.id), x.appId, { active: true })).toMatchObject({
      active: true,
    });
    const batch = await subscriptionsApi.updateBatch(x.appId, {
      inputs: [
        { id: Number(created.id), active: false },
        { id: Number(second.id), active: false },
      ],
    });
    expect(batch.status).toBe('COMPLETE');
    expect(batch.results.map((s) => s.active)).toEqual([false, false]);
    await subscriptionsApi.archive(Number(created.id), x.appId);
    expect((await subscriptionsApi.getAll(x.appId)).results.map((s) => s.id)).toEqual([second.id]);

    await settingsApi.clear(x.appId);
    await expect(settingsApi.getAll(x.appId)).rejects.toMatchObject({ code: 404 });
    // Clearing the settings keeps the subscriptions.
    expect((await subscriptionsApi.getAll(x.appId)).results).toHaveLength(1);
  });

  it('refuses http targets except loopback, bad event types, propertyChange without propertyName; the flat settings shape works', async () => {
    const x = await webhookApp();
    const put = (payload: unknown, version = 'v3') =>
      t.inject({
        method: 'PUT',
        url: `/webhooks/${version}/${x.appId}/settings?hapikey=${devKey(x)}`,
        payload: payload as never,
      });
    const refused = await put({ targetUrl: 'http://example.com/hook', throttling: { maxConcurrentRequests: 5 } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'targetUrl' }] });
    expect((await put({ targetUrl: 'https://example.com/hook', maxConcurrentRequests: 5 }, '2026-03')).statusCode).toBe(
      200,
    );
    expect(
      (await put({ targetUrl: 'http://localhost:9/x', throttling: { maxConcurrentRequests: 5 } })).statusCode,
    ).toBe(200);
    const sub = (payload: unknown) =>
      t.inject({
        method: 'POST',
        url: `/app-webhooks/2026-09/${x.appId}/subscriptions?hapikey=${devKey(x)}`,
        payload: payload as never,
      });
    expect((await sub({ eventType: 'contact.sneeze' as never, active: true })).statusCode).toBe(400);
    expect((await sub({ eventType: 'contact.propertyChange' as never, active: true })).json()).toMatchObject({
      errors: [{ in: 'propertyName' }],
    });
    expect((await sub({ eventType: 'contact.creation' as never })).json()).toMatchObject({
      errors: [{ in: 'active' }],
    });
    expect((await sub({ eventType: 'contact.creation' as never, active: true })).statusCode).toBe(201);
    // Another developer account's key: 403; no credential: 401; 2026-09 takes no bearer token.
    const other = await webhookApp();
    const foreign = await t.inject({ method: 'GET', url: `/webhooks/v3/${x.appId}/settings?hapikey=${devKey(other)}` });
    expect(foreign.statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: `/webhooks/v3/${x.appId}/settings` })).statusCode).toBe(401);
  });
});

describe('bad bodies: HubSpot’s VALIDATION_ERROR naming each field, never a 5xx', () => {
  it('settings, subscriptions, patch and batch update', async () => {
    const x = await webhookApp();
    const call = (method: 'PUT' | 'POST' | 'PATCH', path: string, payload: unknown) =>
      t.inject({ method, url: `/webhooks/v3/${x.appId}${path}?hapikey=${devKey(x)}`, payload: payload as never });
    const refused = async (method: 'PUT' | 'POST' | 'PATCH', path: string, payload: unknown) => {
      const r = await call(method, path, payload);
      expect(r.statusCode).toBe(400);
      const body = r.json() as { category: string; errors: { in: string; code: string }[] };
      expect(body.category).toBe('VALIDATION_ERROR');
      return body.errors.map((e) => `${e.in}:${e.code}`);
    };
    expect(await refused('PUT', '/settings', [1, 2])).toEqual(['body:INVALID_BODY']);
    expect(await refused('PUT', '/settings', { throttling: { maxConcurrentRequests: 2 } })).toEqual([
      'targetUrl:REQUIRED',
    ]);
    expect(await refused('PUT', '/settings', { targetUrl: receiver.url })).toEqual([
      'throttling.maxConcurrentRequests:REQUIRED',
    ]);
    expect(
      await refused('PUT', '/settings', { targetUrl: receiver.url, throttling: { maxConcurrentRequests: 1.5 } }),
    ).toEqual(['throttling.maxConcurrentRequests:INVALID']);
    expect(await refused('POST', '/subscriptions', { eventType: 7, active: 'yes' })).toEqual([
      'eventType:INVALID',
      'active:INVALID',
    ]);
    const created = await call('POST', '/subscriptions', { eventType: 'contact.creation' });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { id: string }).id;
    expect(await refused('PATCH', `/subscriptions/${id}`, { active: 'no' })).toEqual(['active:INVALID']);
    expect(await refused('POST', '/subscriptions/batch/update', {})).toEqual(['inputs:REQUIRED']);
    expect(
      await refused('POST', '/subscriptions/batch/update', { inputs: [{ id: 'x', active: true }, { id: 1 }] }),
    ).toEqual(['inputs.0.id:INVALID', 'inputs.1.active:REQUIRED']);
    expect(
      await refused('POST', '/subscriptions/batch/update', {
        inputs: Array.from({ length: 101 }, () => ({ id: 1, active: true })),
      }),
    ).toEqual(['inputs:TOO_MANY_ITEMS']);
  });
});

describe('wire schemas', () => {
  it.each([
    ['v3', '/webhooks/v3'],
    ['2026-03', '/webhooks/2026-03'],
    ['2026-09', '/app-webhooks/2026-09'],
  ])('every answer at %s matches its schema', async (_, prefix) => {
    const x = await webhookApp();
    const call = async (method: 'GET' | 'PUT' | 'POST' | 'PATCH', path: string, status: number, payload?: unknown) => {
      const r = await t.inject({
        method,
        url: `${prefix}/${x.appId}${path}?hapikey=${devKey(x)}`,
        ...(payload === undefined ? {} : { payload: payload as never }),
      });
      expect({ status: r.statusCode, body: r.body }).toMatchObject({ status });
      const template = path.replace(/\/subscriptions\/\d+$/, '/subscriptions/{subscriptionId}');
      expect(operationProblems(method, `${prefix}/{appId}${template}`, status, r.json())).toEqual([]);
      return r.json() as { id: string };
    };
    await call('PUT', '/settings', 200, { targetUrl: receiver.url, throttling: { maxConcurrentRequests: 3 } });
    await call('GET', '/settings', 200);
    const sub = await call('POST', '/subscriptions', 201, {
      eventType: 'contact.propertyChange',
      propertyName: 'email',
      active: true,
    });
    await call('GET', '/subscriptions', 200);
    await call('GET', `/subscriptions/${sub.id}`, 200);
    await call('PATCH', `/subscriptions/${sub.id}`, 200, { active: false });
    await call('POST', '/subscriptions/batch/update', 200, { inputs: [{ id: Number(sub.id), active: true }] });
    const withUnknown = {
      inputs: [
        { id: Number(sub.id), active: false },
        { id: 999, active: true },
      ],
    };
    await call('POST', '/subscriptions/batch/update', prefix.includes('2026-09') ? 200 : 207, withUnknown);
  });
});

const keys = new WeakMap<Fixture, string>();
function devKey(x: Fixture): string {
  let key = keys.get(x);
  if (!key) {
    key = (x.dev.config as unknown as { developerApiKey: string }).developerApiKey;
    keys.set(x, key);
  }
  return key;
}

describe('deliveries', () => {
  it('a contact’s creation arrives signed (Signature.isValid v1 and v3) with HubSpot’s payload', async () => {
    const x = await webhookApp();
    const sub = await subscribe(x, 'contact.creation');
    const contact = await createContact(x, { email: 'ada@example.com', firstname: 'Ada' });
    await receiver.waitForItems((i) => i.objectId === Number(contact.id), 1, 'the creation', 2000);
    const request = receiver.requests[0]!;
    const header = (name: string) => request.headers[name.toLowerCase()] as string;
    expect(request.method).toBe('POST');
    expect(header('content-type')).toMatch(/^application\/json/);
    expect(header('user-agent')).toMatch(/^HubSpot Connect 2\.0/);
    expect(header('x-hubspot-timeout-millis')).toBe('500');
    expect(
      Signature.isValid({
        signatureVersion: 'v1',
        signature: header('X-HubSpot-Signature'),
        clientSecret: x.f.clientSecret,
        requestBody: request.body,
      }),
    ).toBe(true);
    expect(
      Signature.isValid({
        signatureVersion: 'v3',
        signature: header('X-HubSpot-Signature-v3'),
        clientSecret: x.f.clientSecret,
        requestBody: request.body,
        url: receiver.url,
        method: 'POST',
        timestamp: Number(header('X-HubSpot-Request-Timestamp')),
      }),
    ).toBe(true);
    expect(
      Signature.isValid({
        signatureVersion: 'v1',
        signature: header('X-HubSpot-Signature'),
        clientSecret: 'not-the-secret',
        requestBody: request.body,
      }),
    ).toBe(false);
    expect(request.items).toEqual([
      {
        eventId: expect.any(Number),
        subscriptionId: Number(sub.id),
        portalId: x.f.hubId,
        appId: x.appId,
        occurredAt: expect.any(Number),
        subscriptionType: 'contact.creation',
        attemptNumber: 0,
        objectId: Number(contact.id),
        changeSource: 'INTEGRATION',
        sourceId: String(x.appId),
        changeFlag: 'CREATED',
      },
    ]);
    // Compact JSON, as HubSpot sends it.
    expect(request.body).toBe(JSON.stringify(request.items));
  });

  it('one item per subscribed property (creation values and later changes), deletion with changeFlag DELETED', async () => {
    const x = await webhookApp();
    const first = await subscribe(x, 'contact.propertyChange', 'firstname');
    const last = await x.dev.webhooks.subscriptionsApi.create(x.appId, {
      eventType: 'contact.propertyChange' as never,
      propertyName: 'lastname',
      active: true,
    });
    const deletion = await x.dev.webhooks.subscriptionsApi.create(x.appId, {
      eventType: 'contact.deletion' as never,
      active: true,
    });
    const contact = await createContact(x, { email: 'grace@example.com', firstname: 'Grace', lastname: 'Hopper' });
    const id = Number(contact.id);
    await receiver.waitForItems((i) => i.objectId === id, 2, 'two property items');
    await x.crm.crm.contacts.basicApi.update(contact.id, { properties: { firstname: 'Amazing Grace' } });
    await receiver.waitForItems((i) => i.propertyValue === 'Amazing Grace', 1, 'the change');
    await x.crm.crm.contacts.basicApi.archive(contact.id);
    await receiver.waitForItems((i) => i.subscriptionType === 'contact.deletion', 1, 'the deletion');
    const items = receiver.items();
    expect(items.filter((i) => i.subscriptionId === Number(first.id)).map((i) => i.propertyValue)).toEqual([
      'Grace',
      'Amazing Grace',
    ]);
    expect(items.filter((i) => i.subscriptionId === Number(last.id))).toEqual([
      expect.objectContaining({
        propertyName: 'lastname',
        propertyValue: 'Hopper',
        subscriptionType: 'contact.propertyChange',
      }),
    ]);
    expect(items.filter((i) => i.subscriptionId === Number(deletion.id))).toEqual([
      expect.objectContaining({ objectId: id, changeFlag: 'DELETED', subscriptionType: 'contact.deletion' }),
    ]);
    // No item for the e-mail: no subscription names it.
    expect(items.some((i) => i.propertyName === 'email')).toBe(false);
    expect(new Set(items.map((i) => i.eventId)).size).toBe(items.length);
  });

  it('restore: an item for *.restore subscriptions when an archived record is restored (no changeFlag)', async () => {
    const x = await webhookApp();
    const restored = await subscribe(x, 'contact.restore');
    const deletion = await x.dev.webhooks.subscriptionsApi.create(x.appId, {
      eventType: 'contact.deletion' as never,
      active: true,
    });
    const generic = await x.dev.webhooks.subscriptionsApi.create(x.appId, {
      eventType: 'object.restore' as never,
      objectTypeId: '0-3',
      active: true,
    } as never);
    const contact = await createContact(x, { email: 'restored@example.com' });
    const deal = await x.crm.crm.deals.basicApi.create({ properties: { dealname: 'Back deal' }, associations: [] });
    await x.crm.crm.contacts.basicApi.archive(contact.id);
    await x.crm.crm.deals.basicApi.archive(deal.id);
    await receiver.waitForItems((i) => i.subscriptionType === 'contact.deletion', 1, 'the deletion');
    const restore = (type: string, id: string) =>
      t.admin('POST', `/admin/v1/accounts/${x.f.hubId}/crm/objects/${type}/${id}/restore`, { userId: x.f.userId });
    expect((await restore('contacts', contact.id)).statusCode).toBe(200);
    expect((await restore('deals', deal.id)).statusCode).toBe(200);
    await receiver.waitForItems((i) => String(i.subscriptionType).endsWith('.restore'), 2, 'the restores');
    const items = receiver.items();
    const contactItem = items.find((i) => i.subscriptionId === Number(restored.id))!;
    expect(contactItem).toMatchObject({
      subscriptionType: 'contact.restore',
      objectId: Number(contact.id),
      portalId: x.f.hubId,
      appId: x.appId,
      changeSource: 'CRM_UI',
      sourceId: `userId:${x.f.userId}`,
    });
    expect(contactItem).not.toHaveProperty('changeFlag');
    expect(items.filter((i) => i.subscriptionId === Number(generic.id))).toEqual([
      expect.objectContaining({ subscriptionType: 'object.restore', objectId: Number(deal.id), objectTypeId: '0-3' }),
    ]);
    // One deletion, one restore of the contact; nothing for the deal's deletion (no subscription names it).
    expect(items.filter((i) => i.subscriptionId === Number(deletion.id))).toHaveLength(1);
    expect(items.filter((i) => i.subscriptionId === Number(restored.id))).toHaveLength(1);
  });

  it('associationChange: one item per side with HubSpot’s association fields, added then removed', async () => {
    const x = await webhookApp();
    const fromContact = await subscribe(x, 'contact.associationChange');
    const fromDeal = await x.dev.webhooks.subscriptionsApi.create(x.appId, {
      eventType: 'deal.associationChange' as never,
      active: true,
    });
    const contact = await createContact(x, { email: 'ada@example.com' });
    const deal = await x.crm.crm.deals.basicApi.create({ properties: { dealname: 'Engine' }, associations: [] });
    await x.crm.crm.associations.v4.basicApi.createDefault('contacts', contact.id, 'deals', deal.id);
    await receiver.waitForItems((i) => i.associationRemoved === false, 2, 'both sides of the new association');
    await x.crm.crm.associations.v4.basicApi.archive('contacts', contact.id, 'deals', deal.id);
    await receiver.waitForItems((i) => i.associationRemoved === true, 2, 'both sides of the removal');
    const items = receiver.items();
    const common = { portalId: x.f.hubId, appId: x.appId, changeSource: 'INTEGRATION', isPrimaryAssociation: false };
    expect(items.filter((i) => i.subscriptionId === Number(fromContact.id))).toEqual(
      [false, true].map((removed) =>
        expect.objectContaining({
          ...common,
          subscriptionType: 'contact.associationChange',
          associationType: 'CONTACT_TO_DEAL',
          fromObjectId: Number(contact.id),
          toObjectId: Number(deal.id),
          associationRemoved: removed,
        }),
      ),
    );
    expect(items.filter((i) => i.subscriptionId === Number(fromDeal.id))).toEqual(
      [false, true].map((removed) =>
        expect.objectContaining({
          ...common,
          subscriptionType: 'deal.associationChange',
          associationType: 'DEAL_TO_CONTACT',
          fromObjectId: Number(deal.id),
          toObjectId: Number(contact.id),
          associationRemoved: removed,
        }),
      ),
    );
    // No creation item was subscribed to, and association items name both ends instead of objectId.
    expect(items.every((i) => i.objectId === undefined)).toBe(true);
    expect(new Set(items.map((i) => i.eventId)).size).toBe(items.length);
  });

  it('nothing from before the subscription; nothing for an install without the object’s read scope', async () => {
    const x = await webhookApp();
    await x.dev.webhooks.settingsApi.configure(x.appId, {
      targetUrl: receiver.url,
      throttling: { maxConcurrentRequests: 5 },
    });
    const before = await createContact(x, { email: 'before@example.com' });
    await x.dev.webhooks.subscriptionsApi.create(x.appId, { eventType: 'contact.creation' as never, active: true });
    const after = await createContact(x, { email: 'after@example.com' });
    await receiver.waitForItems((i) => i.objectId === Number(after.id), 1, 'the later creation');
    expect(receiver.items().map((i) => i.objectId)).toEqual([Number(after.id)]);
    expect((await deliveries(x.appId)).results.map((d) => d.objectId)).toEqual([Number(after.id)]);
    expect(before.id).not.toBe(after.id);

    // An app installed with deals scopes only subscribes to contacts: it sees nothing. The create
    // answers after the read models hold it, so the outbox is final when it returns.
    const y = await webhookApp(['oauth', 'crm.objects.deals.read', 'crm.objects.deals.write']);
    await subscribe(y, 'contact.creation');
    await y.crm.crm.deals.basicApi.create({ properties: { dealname: 'Big one' }, associations: [] });
    expect((await deliveries(y.appId)).results).toEqual([]);
  });

  it('101 waiting events go in two requests (100 + 1); maxConcurrentRequests is never exceeded', async () => {
    const x = await webhookApp();
    await subscribe(x, 'deal.creation', undefined, receiver.url, 1);
    await x.dev.webhooks.subscriptionsApi.create(x.appId, { eventType: 'contact.creation' as never, active: true });
    // The first request is held, so the next 101 items wait in the outbox together.
    receiver.answer = (r) => (r.items.some((i) => i.subscriptionType === 'deal.creation') ? 'hold' : { status: 200 });
    await x.crm.crm.deals.basicApi.create({ properties: { dealname: 'Warm-up' }, associations: [] });
    await receiver.waitFor(() => receiver.heldCount === 1, 'the held request');
    const inputs = Array.from({ length: 100 }, (_, i) => ({
      properties: { email: `bulk-${i}@example.com` },
      associations: [],
    }));
    await x.crm.crm.contacts.batchApi.create({ inputs });
    await createContact(x, { email: 'one-more@example.com' });
    receiver.release();
    await receiver.waitForItems((i) => i.subscriptionType === 'contact.creation', 101, '101 creations');
    expect(receiver.requests.slice(1).map((r) => r.items.length)).toEqual([100, 1]);
    expect(receiver.maxInFlight).toBe(1);
  });

  it('at most maxConcurrentRequests requests in flight with more than one batch waiting', async () => {
    // An app of its own with HubSpot's 10 s timeout: on a loaded machine the four batch creates take
    // longer than the shared app's 500 ms, and a request held past it would be retried a minute later.
    const shared = t;
    t = await startTestApp({ listen: true, clock: new ManualClock(Date.now()), env: { WEBHOOK_POLL_MS: '20' } });
    try {
      const x = await webhookApp();
      await subscribe(x, 'contact.creation', undefined, receiver.url, 2);
      receiver.answer = () => 'hold';
      for (let b = 0; b < 4; b++) {
        const inputs = Array.from({ length: 100 }, (_, i) => ({
          properties: { email: `c-${b}-${i}@example.com` },
          associations: [],
        }));
        await x.crm.crm.contacts.batchApi.create({ inputs });
      }
      // With 400 items waiting, both of the app's slots fill (the delivery thread may have sent the
      // first batch before the others were created, so wait for the second rather than assume it).
      await receiver.waitFor(() => receiver.heldCount === 2, 'two requests in flight');
      // Release one at a time as requests come in, until all 400 items arrived.
      while (receiver.items().length < 400) {
        await receiver.waitFor(() => receiver.heldCount > 0, 'a held request');
        expect(receiver.inFlight).toBeLessThanOrEqual(2);
        receiver.release();
      }
      while (receiver.release());
      expect(receiver.maxInFlight).toBeLessThanOrEqual(2);
      expect(receiver.maxInFlight).toBe(2);
    } finally {
      await t.close();
      t = shared;
    }
  });
});

describe('retries on the install’s clock', () => {
  it('after a 500: the same eventId with rising attemptNumber; a day on the install’s clock plays all 10 retries, then abandoned', async () => {
    const x = await webhookApp();
    await subscribe(x, 'contact.creation');
    receiver.answer = () => ({ status: 500 });
    const contact = await createContact(x, { email: 'retry@example.com' });
    await receiver.waitFor(() => receiver.requests.length === 1, 'the first attempt');
    const [first] = receiver.items();
    await waitForLog(x.appId, (d) => d.attempts === 1);
    let log = (await deliveries(x.appId)).results[0]!;
    expect(log).toMatchObject({ status: 'retrying', attempts: 1 });
    expect(log.nextAttemptAt).toBeGreaterThan(t.clock.now());
    await advanceInstall(x, 86_400);
    await receiver.waitFor(() => receiver.requests.length === 11, 'ten retries', 10_000);
    const items = receiver.items();
    expect(items.map((i) => i.eventId)).toEqual(Array(11).fill(first!.eventId));
    expect(items.map((i) => i.attemptNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(items.every((i) => i.objectId === Number(contact.id))).toBe(true);
    await waitForLog(x.appId, (d) => d.status === 'abandoned');
    log = (await deliveries(x.appId)).results[0]!;
    expect(log.attemptLog.map((a) => a.response.statusCode)).toEqual(Array(11).fill(500));
  });

  it('after a timeout and after a refused connection the item is retried with the same eventId', async () => {
    const x = await webhookApp();
    const port = await closedPort();
    await subscribe(x, 'contact.creation', undefined, `http://127.0.0.1:${port}/gone`);
    await createContact(x, { email: 'refused@example.com' });
    await waitForLog(x.appId, (d) => d.attempts === 1);
    const refused = (await deliveries(x.appId)).results[0]!;
    expect(refused.attemptLog[0]!.response).toMatchObject({ statusCode: null, error: 'connection refused' });
    expect(refused.status).toBe('retrying');

    // Now a receiver that hangs (longer than the 500 ms timeout) once, then answers.
    receiver.answer = () => (receiver.requests.length === 1 ? 'hang' : { status: 200 });
    await x.dev.webhooks.settingsApi.configure(x.appId, {
      targetUrl: receiver.url,
      throttling: { maxConcurrentRequests: 5 },
    });
    await advanceInstall(x, 600);
    await waitForLog(x.appId, (d) => d.attempts === 2);
    expect((await deliveries(x.appId)).results[0]!.attemptLog[1]!.response.error).toBe('timeout');
    await advanceInstall(x, 86_400);
    await receiver.waitFor(() => receiver.requests.length === 2, 'the retry after the timeout');
    const items = receiver.items();
    expect(items.map((i) => i.eventId)).toEqual([refused.eventId, refused.eventId]);
    expect(items.map((i) => i.attemptNumber)).toEqual([1, 2]);
    await waitForLog(x.appId, (d) => d.status === 'delivered');
  });

  it('no retry after a 404; a 429 waits for its Retry-After', async () => {
    const x = await webhookApp();
    await subscribe(x, 'contact.creation');
    receiver.answer = () => ({ status: 404 });
    const gone = await createContact(x, { email: 'unwanted@example.com' });
    await waitForLog(x.appId, (d) => d.status === 'failed');
    receiver.answer = (r) =>
      r.items.some((i) => i.attemptNumber === 0)
        ? { status: 429, headers: { 'Retry-After': '3600' } }
        : { status: 200 };
    const limited = await createContact(x, { email: 'limited@example.com' });
    await waitForLog(x.appId, (d) => d.objectId === Number(limited.id) && d.attempts === 1);
    const log = (await deliveries(x.appId, `?objectId=${limited.id}`)).results[0]!;
    expect(log.status).toBe('retrying');
    // Not before the hour, though HubSpot's schedule alone would retry after about a minute.
    expect(log.nextAttemptAt! - t.clock.now()).toBeGreaterThanOrEqual(3_599_000);
    await advanceInstall(x, 3_601);
    await receiver.waitForItems(
      (i) => i.objectId === Number(limited.id) && i.attemptNumber === 1,
      1,
      'the retry after the hour',
    );
    // A later event was delivered after the clock moved a day's worth past the 404: it never came back.
    await advanceInstall(x, 86_400);
    const later = await createContact(x, { email: 'later@example.com' });
    await receiver.waitForItems((i) => i.objectId === Number(later.id), 1, 'a later creation');
    expect(receiver.items().filter((i) => i.objectId === Number(gone.id))).toHaveLength(1);
    const filtered = await deliveries(x.appId, '?status=failed');
    expect(filtered.results.map((d) => d.objectId)).toEqual([Number(gone.id)]);
  });

  it('a redirect is not followed: its 3xx is the answer, and the item is retried with the same eventId', async () => {
    const x = await webhookApp();
    await subscribe(x, 'contact.creation');
    receiver.answer = (r) =>
      r.url.endsWith('/moved') || r.items.some((i) => i.attemptNumber === 1)
        ? { status: 204 }
        : { status: 302, headers: { Location: `${receiver.url}/moved` } };
    const moved = await createContact(x, { email: 'moved@example.com' });
    await waitForLog(x.appId, (d) => d.objectId === Number(moved.id) && d.status === 'retrying');
    const log = (await deliveries(x.appId, `?objectId=${moved.id}`)).results[0]!;
    expect(log.attemptLog[0]!.response).toMatchObject({ statusCode: 302, error: null });
    expect(receiver.requests.filter((r) => r.url.endsWith('/moved'))).toHaveLength(0);
    await advanceInstall(x, 120);
    const retried = (i: Record<string, unknown>) => i.objectId === Number(moved.id) && i.attemptNumber === 1;
    await receiver.waitForItems(retried, 1, 'the retry after the redirect');
    expect(receiver.items().find(retried)!.eventId).toBe(log.eventId);
    await waitForLog(x.appId, (d) => d.objectId === Number(moved.id) && d.status === 'delivered');
  });

  it('the delivery log pages, and a redelivery sends the item again with its eventId and the next attemptNumber', async () => {
    const x = await webhookApp();
    await subscribe(x, 'contact.creation');
    for (let i = 0; i < 3; i++) await createContact(x, { email: `paged-${i}@example.com` });
    await receiver.waitFor(() => receiver.items().length === 3, 'three creations');
    await waitForLog(x.appId, (d) => d.status === 'delivered', 3);
    const page1 = await deliveries(x.appId, '?limit=2');
    expect(page1.results).toHaveLength(2);
    const page2 = await deliveries(x.appId, `?limit=2&after=${page1.paging!.next.after}`);
    expect(page2.results).toHaveLength(1);
    expect(page2.paging).toBeUndefined();
    const target = page1.results[0]!;
    expect(target.attemptLog[0]).toMatchObject({ attemptNumber: 0, response: { statusCode: 200 } });
    const r = await t.admin('POST', `/admin/v1/apps/${x.appId}/webhook-deliveries/${target.id}/redeliver`);
    expect(r.statusCode).toBe(202);
    await receiver.waitForItems((i) => i.eventId === target.eventId && i.attemptNumber === 1, 1, 'the redelivery');
    const unknown = await t.admin('POST', `/admin/v1/apps/${x.appId}/webhook-deliveries/12345/redeliver`);
    expect(unknown.statusCode).toBe(404);
  });
});

describe('the outbox is a read model', () => {
  it('rebuilt from the events it gives the same log, and sends nothing again', async () => {
    const x = await webhookApp();
    await subscribe(x, 'contact.creation');
    const failing = { id: '0' };
    receiver.answer = (r) => (r.items[0]!.objectId === Number(failing.id) ? { status: 404 } : { status: 200 });
    const delivered = await createContact(x, { email: 'kept@example.com' });
    await receiver.waitFor(() => receiver.requests.length === 1, 'the first creation');
    failing.id = (await createContact(x, { email: 'refused@example.com' })).id;
    await waitForLog(x.appId, (d) => d.status === 'delivered' || d.status === 'failed', 2);
    const before = await deliveries(x.appId);
    const sent = receiver.requests.length;
    await t.app.get(DeliveryThread).rebuild();
    expect(await deliveries(x.appId)).toEqual(before);
    const later = await createContact(x, { email: 'after-rebuild@example.com' });
    await receiver.waitForItems((i) => i.objectId === Number(later.id), 1, 'the creation after the rebuild');
    expect(receiver.requests.slice(sent).flatMap((r) => r.items.map((i) => i.objectId))).toEqual([Number(later.id)]);
    expect(before.results.map((d) => d.objectId)).toEqual([Number(delivered.id), Number(failing.id)]);
  });
});

/** Waits until `count` deliveries of the app match (the log is a read model: polled on the receiver's events and briefly). */
async function waitForLog(
  appId: number,
  match: (d: Awaited<ReturnType<typeof deliveries>>['results'][number]) => boolean,
  count = 1,
): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const { results } = await deliveries(appId, '?limit=100');
    if (results.filter(match).length >= count) return;
    if (Date.now() > deadline) throw new Error(`delivery log: no match in ${JSON.stringify(results).slice(0, 2000)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
