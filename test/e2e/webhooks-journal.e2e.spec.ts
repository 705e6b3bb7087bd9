import type { LightMyRequestResponse } from 'fastify';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { WEBHOOKS_JOURNAL_PROJECTION } from '../../src/webhooks-journal/projections/webhooks-journal.projection';
import { createAccount, createUser, startTestApp, type TestApp } from '../support/test-app';
import { exchangeCode, installCode, oauthFixture, type OAuthFixture } from '../support/oauth-fixtures';
import { componentSchema, operationProblems, wireProblems } from '../support/wire-schemas';
import { DeliveryThread } from '../../src/app-webhooks/delivery-thread/delivery-thread';

/**
 * The webhooks journal end to end: an app token (client_credentials with the journal scopes),
 * subscriptions, record changes in two accounts read back through earliest -> next -> latest, the
 * local journal, a filter, a snapshot, the 3-day expiry on the install's clock, and a rebuild.
 */
let t: TestApp;

const SCOPES = [
  'oauth',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
];
const JOURNAL_SCOPES_SPEC =
  'webhooks-journal-data-access webhooks-journal-subscription-management webhooks-journal-snapshot-management';
const JOURNAL_SCOPES_DOCS =
  'developer.webhooks_journal.read developer.webhooks_journal.subscriptions.read developer.webhooks_journal.subscriptions.write developer.webhooks_journal.snapshots.read developer.webhooks_journal.snapshots.write';

const J = '/webhooks-journal/journal/2026-03';
const L = '/webhooks-journal/journal-local/2026-03';
const S = '/webhooks-journal/subscriptions/2026-03';

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

interface Setup {
  f: OAuthFixture;
  hub1: number;
  hub2: number;
  user2: number;
  token1: string;
  token2?: string;
  app: string;
}

async function appToken(f: OAuthFixture, scope: string | undefined): Promise<LightMyRequestResponse> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: f.clientId,
    client_secret: f.clientSecret,
    ...(scope === undefined ? {} : { scope }),
  });
  return t.inject({
    method: 'POST',
    url: '/oauth/2026-03/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
}

async function installIn(f: OAuthFixture, hubId: number, userId: number): Promise<string> {
  const { code } = await installCode(t, f, { hubId, userId });
  const r = await exchangeCode(t, f, code);
  expect(r.statusCode).toBe(200);
  return (r.json() as { access_token: string }).access_token;
}

async function setup(scope = JOURNAL_SCOPES_SPEC): Promise<Setup> {
  const f = await oauthFixture(t, { requiredScopes: SCOPES, optionalScopes: [] });
  const other = await createAccount(t);
  const user2 = await createUser(t, { hubIds: [other.hubId] });
  const token1 = await installIn(f, f.hubId, f.userId);
  const r = await appToken(f, scope);
  expect(r.statusCode).toBe(200);
  expect(r.json()).toMatchObject({ token_use: 'client_credentials', scopes: scope.split(' ') });
  return { f, hub1: f.hubId, hub2: other.hubId, user2: user2.userId, token1, app: r.json().access_token };
}

function call(token: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  return t.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** Calls the journal and checks the answer against its wire schema. */
async function journal(x: Setup, method: 'GET' | 'POST' | 'DELETE', url: string, template: string, payload?: unknown) {
  const r = await call(x.app, method, url, payload);
  if (r.statusCode < 300 && r.statusCode !== 204) {
    expect(operationProblems(method, template, r.statusCode, r.json(), '2026-03/webhooksJournal.json')).toEqual([]);
  }
  return r;
}

async function subscribe(x: Setup, body: Record<string, unknown>): Promise<number> {
  const r = await journal(x, 'POST', S, S, body);
  expect(r.statusCode).toBe(200);
  return r.json().id as number;
}

/** The file a journal answer points to, fetched as HubSpot's clients do: no Authorization header. */
async function file(url: string): Promise<LightMyRequestResponse> {
  const u = new URL(url);
  return t.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
}

interface Entry {
  offset: string;
  action: string;
  portalId: number;
  objectId?: number;
  objectTypeId?: string;
  propertyChanges?: Record<string, string>;
  subscriptionIds: number[];
  associatedObjectId?: number;
}

async function entryOf(answer: { url: string; currentOffset: string }): Promise<Entry> {
  const r = await file(answer.url);
  expect(r.statusCode).toBe(200);
  const body = r.json() as { offset: string; publishedAt: string; journalEvents: Omit<Entry, 'offset'>[] };
  expect(body.offset).toBe(answer.currentOffset);
  expect(Number.isNaN(Date.parse(body.publishedAt))).toBe(false);
  expect(body.journalEvents).toHaveLength(1);
  return { offset: body.offset, ...body.journalEvents[0]! };
}

/** earliest -> next -> ... until the journal has nothing after: every entry, in order. */
async function walk(x: Setup, base: string, query = ''): Promise<Entry[]> {
  const out: Entry[] = [];
  const first = await journal(x, 'GET', `${base}/earliest${query}`, `${base}/earliest`);
  if (first.statusCode === 404) return out;
  expect(first.statusCode).toBe(200);
  let answer = first.json() as { url: string; currentOffset: string };
  for (;;) {
    out.push(await entryOf(answer));
    const next = await journal(
      x,
      'GET',
      `${base}/offset/${answer.currentOffset}/next${query}`,
      `${base}/offset/{offset}/next`,
    );
    if (next.statusCode === 204) {
      expect(next.body).toBe('');
      return out;
    }
    expect(next.statusCode).toBe(200);
    answer = next.json();
  }
}

const createRecord = async (token: string, type: string, properties: Record<string, string>) => {
  const r = await call(token, 'POST', `/crm/v3/objects/${type}`, { properties });
  expect(r.statusCode).toBe(201);
  return Number(r.json().id);
};

describe('the webhooks journal', () => {
  it('journals two accounts’ changes, read back through earliest, next, latest, batches and the local journal', async () => {
    const x = await setup();
    const lifecycle = await subscribe(x, {
      subscriptionType: 'APP_LIFECYCLE_EVENT',
      eventTypeId: 'app-lifecycle',
      properties: [],
    });
    const objects1 = await subscribe(x, {
      subscriptionType: 'OBJECT',
      portalId: x.hub1,
      objectTypeId: '0-1',
      actions: ['CREATE', 'UPDATE', 'DELETE'],
      objectIds: [],
      properties: [],
    });
    const objects2 = await subscribe(x, {
      subscriptionType: 'OBJECT',
      portalId: x.hub2,
      objectTypeId: '0-1',
      actions: ['CREATE', 'UPDATE', 'DELETE'],
      objectIds: [],
      properties: [],
    });
    const associations = await subscribe(x, {
      subscriptionType: 'ASSOCIATION',
      portalId: x.hub1,
      objectTypeId: '0-1',
      associatedObjectTypeIds: ['0-2'],
      actions: ['ASSOCIATION_ADDED', 'ASSOCIATION_REMOVED'],
      objectIds: [],
    });
    const list = await journal(x, 'GET', S, S);
    expect(list.json().results.map((s: { id: number }) => s.id)).toEqual([lifecycle, objects1, objects2, associations]);
    expect((await journal(x, 'GET', `${S}/${objects1}`, `${S}/{subscriptionId}`)).json()).toMatchObject({
      id: objects1,
      subscriptionType: 'OBJECT',
      portalId: x.hub1,
      objectTypeId: '0-1',
      actions: ['CREATE', 'UPDATE', 'DELETE'],
    });

    // Nothing journaled yet.
    expect((await journal(x, 'GET', `${J}/earliest`, `${J}/earliest`)).statusCode).toBe(404);
    expect((await journal(x, 'GET', `${J}/batch/earliest/10`, `${J}/batch/earliest/{count}`)).json().results).toEqual(
      [],
    );

    const token2 = await installIn(x.f, x.hub2, x.user2);
    const ada = await createRecord(x.token1, 'contacts', { email: 'ada@example.com', firstname: 'Ada' });
    const bob = await createRecord(token2, 'contacts', { email: 'bob@example.com' });
    expect(
      (await call(x.token1, 'PATCH', `/crm/v3/objects/contacts/${ada}`, { properties: { firstname: 'Augusta' } }))
        .statusCode,
    ).toBe(200);
    expect((await call(token2, 'DELETE', `/crm/v3/objects/contacts/${bob}`)).statusCode).toBe(204);
    const acme = await createRecord(x.token1, 'companies', { name: 'Acme' });
    const linked = await call(
      x.token1,
      'PUT',
      `/crm/v4/objects/contacts/${ada}/associations/default/companies/${acme}`,
    );
    expect(linked.statusCode).toBe(200);

    const entries = await walk(x, J);
    expect(entries.map((e) => [e.action, e.portalId, e.objectId])).toEqual([
      ['APP_INSTALL', x.hub2, undefined],
      ['CREATE', x.hub1, ada],
      ['CREATE', x.hub2, bob],
      ['UPDATE', x.hub1, ada],
      ['DELETE', x.hub2, bob],
      ['ASSOCIATION_ADDED', x.hub1, ada],
    ]);
    expect(entries[1]).toMatchObject({
      objectTypeId: '0-1',
      subscriptionIds: [objects1],
      propertyChanges: { firstname: 'Ada', email: 'ada@example.com' },
    });
    expect(entries[3]!.propertyChanges).toEqual({ firstname: 'Augusta' });
    expect(entries[5]).toMatchObject({ subscriptionIds: [associations], associatedObjectId: acme });
    expect(entries[0]!.subscriptionIds).toEqual([lifecycle]);

    const latest = await journal(x, 'GET', `${J}/latest`, `${J}/latest`);
    expect(latest.json().currentOffset).toBe(entries[5]!.offset);
    expect(Date.parse(latest.json().expiresAt)).toBeGreaterThan(t.clock.now());

    const batch = await journal(x, 'GET', `${J}/batch/earliest/100`, `${J}/batch/earliest/{count}`);
    expect(batch.json().results.map((r: { currentOffset: string }) => r.currentOffset)).toEqual(
      entries.map((e) => e.offset),
    );
    const lastTwo = await journal(x, 'GET', `${J}/batch/latest/2`, `${J}/batch/latest/{count}`);
    expect(lastTwo.json().results.map((r: { currentOffset: string }) => r.currentOffset)).toEqual(
      entries.slice(4).map((e) => e.offset),
    );
    const after = await journal(
      x,
      'GET',
      `${J}/batch/${entries[1]!.offset}/next/2`,
      `${J}/batch/{offset}/next/{count}`,
    );
    expect(after.json().results.map((r: { currentOffset: string }) => r.currentOffset)).toEqual(
      entries.slice(2, 4).map((e) => e.offset),
    );
    const read = await journal(x, 'POST', `${J}/batch/read`, `${J}/batch/read`, {
      inputs: [entries[2]!.offset, entries[0]!.offset],
    });
    expect(read.statusCode).toBe(200);
    expect(read.json().results).toHaveLength(2);
    const unknown = '00000000-0000-8000-8000-000000000000';
    const partly = await journal(x, 'POST', `${J}/batch/read`, `${J}/batch/read`, {
      inputs: [entries[2]!.offset, unknown],
    });
    expect(partly.statusCode).toBe(207);
    expect(partly.json()).toMatchObject({ numErrors: 1, errors: [{ context: { offset: [unknown] } }] });

    // The app's journal of one account, and the local journal of each.
    const only1 = await walk(x, J, `?installPortalId=${x.hub1}`);
    expect(only1.map((e) => e.offset)).toEqual(entries.filter((e) => e.portalId === x.hub1).map((e) => e.offset));
    const local1 = await walk(x, L, `?installPortalId=${x.hub1}`);
    expect(local1.map((e) => e.offset)).toEqual(only1.map((e) => e.offset));
    const local2 = await walk(x, L, `?installPortalId=${x.hub2}`);
    expect(local2.map((e) => e.action)).toEqual(['APP_INSTALL', 'CREATE', 'DELETE']);
    // An offset of another account is unknown to this account's local journal.
    const foreign = await journal(
      x,
      'GET',
      `${L}/offset/${entries[1]!.offset}/next?installPortalId=${x.hub2}`,
      `${L}/offset/{offset}/next`,
    );
    expect(foreign.statusCode).toBe(404);

    // Rebuilt from the history with the other read models: the same journal, the same offsets.
    const runner = t.app.get(ProjectionRunner);
    await runner.rebuild(WEBHOOKS_JOURNAL_PROJECTION);
    await t.app.get(DeliveryThread).rebuild();
    expect((await walk(x, J)).map((e) => e.offset)).toEqual(entries.map((e) => e.offset));
  });

  it('journals a restore (HubSpot’s RESTORE action) for subscriptions that name it', async () => {
    const x = await setup();
    const withRestore = await subscribe(x, {
      subscriptionType: 'OBJECT',
      portalId: x.hub1,
      objectTypeId: '0-1',
      actions: ['DELETE', 'RESTORE'],
      objectIds: [],
      properties: [],
    });
    const deletesOnly = await subscribe(x, {
      subscriptionType: 'OBJECT',
      portalId: x.hub1,
      objectTypeId: '0-1',
      actions: ['DELETE'],
      objectIds: [],
      properties: [],
    });
    const ada = await createRecord(x.token1, 'contacts', { email: 'restore-journal@example.com', firstname: 'Ada' });
    expect((await call(x.token1, 'DELETE', `/crm/v3/objects/contacts/${ada}`)).statusCode).toBe(204);
    const restored = await t.admin('POST', `/admin/v1/accounts/${x.hub1}/crm/objects/contacts/${ada}/restore`, {});
    expect(restored.statusCode).toBe(200);
    const entries = await walk(x, J);
    expect(entries.map((e) => [e.action, e.objectId, e.subscriptionIds])).toEqual([
      ['DELETE', ada, [withRestore, deletesOnly]],
      ['RESTORE', ada, [withRestore]],
    ]);
    expect(entries[1]).toMatchObject({ portalId: x.hub1, objectTypeId: '0-1' });
    expect(entries[1]!.propertyChanges).toBeUndefined();
  });

  it('keeps only one property’s changes with a filter; journals snapshots of current records', async () => {
    const x = await setup(JOURNAL_SCOPES_DOCS);
    const sub = await subscribe(x, {
      subscriptionType: 'OBJECT',
      portalId: x.hub1,
      objectTypeId: '0-1',
      actions: ['UPDATE'],
      objectIds: [],
      properties: [],
    });
    const created = await journal(x, 'POST', `${S}/filters`, `${S}/filters`, {
      subscriptionId: sub,
      filter: { conditions: [{ filterType: 'CRM_OBJECT_PROPERTY', property: 'lastname', operator: 'IS_NOT_EMPTY' }] },
    });
    expect(created.statusCode).toBe(200);
    const filterId = created.json().filterId as number;
    expect((await journal(x, 'GET', `${S}/filters/${filterId}`, `${S}/filters/{filterId}`)).json()).toMatchObject({
      id: filterId,
      filter: { conditions: [{ property: 'lastname', operator: 'IS_NOT_EMPTY' }] },
    });
    const ofSub = await journal(
      x,
      'GET',
      `${S}/filters/subscription/${sub}`,
      `${S}/filters/subscription/{subscriptionId}`,
    );
    expect(ofSub.json().map((f: { id: number }) => f.id)).toEqual([filterId]);

    const ada = await createRecord(x.token1, 'contacts', { email: 'ada@example.com' });
    for (const properties of [{ firstname: 'Ada' }, { lastname: 'Lovelace' }, { phone: '555-0100' }]) {
      expect((await call(x.token1, 'PATCH', `/crm/v3/objects/contacts/${ada}`, { properties })).statusCode).toBe(200);
    }
    const kept = await walk(x, J);
    expect(kept.map((e) => [e.action, e.propertyChanges])).toEqual([['UPDATE', { lastname: 'Lovelace' }]]);

    // The filter gone, every update is kept again.
    expect((await call(x.app, 'DELETE', `${S}/filters/${filterId}`)).statusCode).toBe(204);
    expect((await call(x.app, 'GET', `${S}/filters/${filterId}`)).statusCode).toBe(404);
    expect(
      (await call(x.token1, 'PATCH', `/crm/v3/objects/contacts/${ada}`, { properties: { firstname: 'Augusta' } }))
        .statusCode,
    ).toBe(200);
    expect((await walk(x, J)).map((e) => e.propertyChanges)).toEqual([
      { lastname: 'Lovelace' },
      { firstname: 'Augusta' },
    ]);

    const snap = await journal(
      x,
      'POST',
      '/webhooks-journal/snapshots/2026-03/crm',
      '/webhooks-journal/snapshots/2026-03/crm',
      {
        snapshotRequests: [
          { portalId: x.hub1, objectTypeId: '0-1', objectId: ada, properties: ['firstname', 'lastname'] },
          { portalId: x.hub1, objectTypeId: '0-1', objectId: 999999, properties: [] },
          { portalId: x.hub2, objectTypeId: '0-1', objectId: ada, properties: [] },
        ],
      },
    );
    expect(snap.statusCode).toBe(200);
    const [ok, missing, notInstalled] = snap.json().snapshotResponses as {
      snapshotStatusId: string;
      objectId: number;
    }[];
    expect(ok!.objectId).toBe(ada);
    const status = async (id: string) =>
      (await journal(x, 'GET', `${J}/status/${id}`, `${J}/status/{statusId}`)).json();
    expect(await status(ok!.snapshotStatusId)).toMatchObject({ id: ok!.snapshotStatusId, status: 'SUCCESS' });
    expect(await status(missing!.snapshotStatusId)).toMatchObject({ status: 'FAILED', errorCode: 'VALIDATION_ERROR' });
    expect(await status(notInstalled!.snapshotStatusId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'PERMISSION_DENIED',
    });
    const local = await journal(x, 'GET', `${L}/status/${ok!.snapshotStatusId}`, `${L}/status/{statusId}`);
    expect(local.statusCode).toBe(200);
    const last = await entryOf((await journal(x, 'GET', `${J}/latest`, `${J}/latest`)).json());
    expect(last).toMatchObject({
      action: 'SNAPSHOT',
      objectId: ada,
      propertyChanges: { firstname: 'Augusta', lastname: 'Lovelace' },
    });

    // Deleting the account's subscriptions stops its journal; the entries stay.
    expect((await call(x.app, 'DELETE', `${S}/portals/${x.hub1}`)).statusCode).toBe(204);
    expect((await journal(x, 'GET', S, S)).json().results).toEqual([]);
    expect(
      (await call(x.token1, 'PATCH', `/crm/v3/objects/contacts/${ada}`, { properties: { lastname: 'King' } }))
        .statusCode,
    ).toBe(200);
    expect((await walk(x, J)).map((e) => e.action)).toEqual(['UPDATE', 'UPDATE', 'SNAPSHOT']);
  });

  it('forgets entries older than 3 days on the install’s clock; the file URLs are signed and expire', async () => {
    const x = await setup();
    for (const hub of [x.hub1, x.hub2]) {
      await subscribe(x, {
        subscriptionType: 'OBJECT',
        portalId: hub,
        objectTypeId: '0-1',
        actions: ['CREATE'],
        objectIds: [],
        properties: [],
      });
    }
    const token2 = await installIn(x.f, x.hub2, x.user2);
    const ada = await createRecord(x.token1, 'contacts', { email: 'ada@example.com' });
    const bob = await createRecord(token2, 'contacts', { email: 'bob@example.com' });
    const before = await walk(x, J);
    expect(before.map((e) => e.objectId)).toEqual([ada, bob]);
    const adaAnswer = (await journal(x, 'GET', `${J}/earliest`, `${J}/earliest`)).json() as { url: string };

    // A URL altered or expired is refused; the genuine one works without a token.
    const forged = adaAnswer.url.replace(/signature=[^&]+/, 'signature=AAAA');
    expect((await file(forged)).statusCode).toBe(403);
    const otherEntry = adaAnswer.url.replace(before[0]!.offset, before[1]!.offset);
    expect((await file(otherEntry)).statusCode).toBe(403);
    expect((await file(adaAnswer.url)).statusCode).toBe(200);

    // Account 1's install clock moves 3 days and a minute on: its entry is gone, account 2's stays.
    const moved = await t.admin('POST', `/admin/v1/accounts/${x.hub1}/installs/${x.f.appId}/clock`, {
      advanceSeconds: 3 * 24 * 3600 + 60,
    });
    expect(moved.statusCode).toBe(200);
    expect((await walk(x, J)).map((e) => e.objectId)).toEqual([bob]);
    expect((await journal(x, 'GET', `${L}/earliest?installPortalId=${x.hub1}`, `${L}/earliest`)).statusCode).toBe(404);
    const expired = await journal(x, 'GET', `${J}/offset/${before[0]!.offset}/next`, `${J}/offset/{offset}/next`);
    expect(expired.statusCode).toBe(404);
    expect(expired.json()).toMatchObject({ category: 'OBJECT_NOT_FOUND' });
    expect(expired.json().message).toContain('expired');
    expect((await file(adaAnswer.url)).statusCode).toBe(404);

    // The URL itself expires on the service's clock.
    const bobAnswer = (await journal(x, 'GET', `${J}/latest`, `${J}/latest`)).json() as {
      url: string;
      expiresAt: string;
    };
    t.clock.advance(Date.parse(bobAnswer.expiresAt) - t.clock.now() + 1000);
    expect((await file(bobAnswer.url)).statusCode).toBe(403);
  });

  it('takes only app tokens with the journal scopes', async () => {
    const x = await setup('webhooks-journal-data-access');
    // An install's access token acts for an account: refused.
    const install = await call(x.token1, 'GET', `${J}/earliest`);
    expect(install.statusCode).toBe(401);
    expect(install.json()).toMatchObject({ category: 'INVALID_AUTHENTICATION' });
    expect((await call(x.token1, 'GET', S)).statusCode).toBe(401);
    // The data scope alone: no subscriptions, no snapshots.
    const missing = await call(x.app, 'GET', S);
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toMatchObject({ category: 'MISSING_SCOPES' });
    expect(
      (await call(x.app, 'POST', '/webhooks-journal/snapshots/2026-03/crm', { snapshotRequests: [] })).statusCode,
    ).toBe(403);
    // An app token without scopes, and no token at all.
    const bare = await appToken(x.f, undefined);
    expect((await call(bare.json().access_token, 'GET', `${J}/earliest`)).statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: `${J}/earliest` })).statusCode).toBe(401);
    // The grant refuses other scopes for an app token.
    expect((await appToken(x.f, 'webhooks-journal-data-access crm.objects.contacts.read')).statusCode).toBe(400);
  });

  it('answers bad input on every route with HubSpot’s error, never a 5xx', async () => {
    const x = await setup(`${JOURNAL_SCOPES_SPEC} webhooks-journal-subscription-read`);
    const uuid = '00000000-0000-8000-8000-000000000000';
    const cases: [string, string, unknown, number][] = [];
    for (const base of [J, L]) {
      const q = base === L ? `?installPortalId=${x.hub1}` : '';
      cases.push(
        ['GET', `${base}/earliest?installPortalId=abc`, undefined, 400],
        ['GET', `${base}/latest?installPortalId=-1`, undefined, 400],
        ['GET', `${base}/offset/not-a-uuid/next${q}`, undefined, 400],
        ['GET', `${base}/offset/${uuid}/next${q}`, undefined, 404],
        ['GET', `${base}/batch/earliest/0${q}`, undefined, 400],
        ['GET', `${base}/batch/latest/101${q}`, undefined, 400],
        ['GET', `${base}/batch/latest/1e3${q}`, undefined, 400],
        ['GET', `${base}/batch/${uuid}/next/5${q}`, undefined, 404],
        ['GET', `${base}/batch/nope/next/5${q}`, undefined, 400],
        ['POST', `${base}/batch/read${q}`, { inputs: 'x' }, 400],
        ['POST', `${base}/batch/read${q}`, { inputs: [] }, 400],
        ['POST', `${base}/batch/read${q}`, [1, 2], 400],
        ['GET', `${base}/status/nope`, undefined, 400],
        ['GET', `${base}/status/${uuid}`, undefined, 404],
      );
    }
    cases.push(
      ['GET', `${L}/earliest`, undefined, 400],
      ['POST', S, {}, 400],
      ['POST', S, { subscriptionType: 'NOPE' }, 400],
      ['POST', S, { subscriptionType: 'OBJECT', objectTypeId: '0-1', actions: ['CREATE'] }, 400],
      ['POST', S, { subscriptionType: 'OBJECT', portalId: x.hub1, objectTypeId: 'contacts', actions: ['CREATE'] }, 400],
      ['POST', S, { subscriptionType: 'OBJECT', portalId: x.hub1, objectTypeId: '0-1', actions: [] }, 400],
      ['POST', S, { subscriptionType: 'OBJECT', portalId: x.hub1, objectTypeId: '0-1', actions: ['APP_INSTALL'] }, 400],
      [
        'POST',
        S,
        { subscriptionType: 'OBJECT', portalId: x.hub1, objectTypeId: '0-1', actions: ['CREATE'], objectIds: ['x'] },
        400,
      ],
      [
        'POST',
        S,
        { subscriptionType: 'ASSOCIATION', portalId: x.hub1, objectTypeId: '0-1', actions: ['ASSOCIATION_ADDED'] },
        400,
      ],
      ['POST', S, { subscriptionType: 'APP_LIFECYCLE_EVENT', properties: [] }, 400],
      [
        'POST',
        S,
        {
          subscriptionType: 'LIST_MEMBERSHIP',
          portalId: x.hub1,
          listIds: [1],
          objectIds: [],
          actions: ['ADDED_TO_LIST'],
        },
        400,
      ],
      ['GET', `${S}/abc`, undefined, 400],
      ['GET', `${S}/99999`, undefined, 404],
      ['DELETE', `${S}/0`, undefined, 400],
      ['DELETE', `${S}/99999`, undefined, 404],
      ['DELETE', `${S}/portals/x`, undefined, 400],
      ['POST', `${S}/filters`, {}, 400],
      ['POST', `${S}/filters`, { subscriptionId: 1, filter: { conditions: [] } }, 400],
      [
        'POST',
        `${S}/filters`,
        { subscriptionId: 1, filter: { conditions: [{ filterType: 'X', property: 'a', operator: 'EQ' }] } },
        400,
      ],
      [
        'POST',
        `${S}/filters`,
        {
          subscriptionId: 1,
          filter: { conditions: [{ filterType: 'CRM_OBJECT_PROPERTY', property: 'a', operator: 'LIKE' }] },
        },
        400,
      ],
      [
        'POST',
        `${S}/filters`,
        {
          subscriptionId: 99999,
          filter: { conditions: [{ filterType: 'CRM_OBJECT_PROPERTY', property: 'a', operator: 'EQ', value: 'b' }] },
        },
        404,
      ],
      ['GET', `${S}/filters/x`, undefined, 400],
      ['GET', `${S}/filters/99999`, undefined, 404],
      ['DELETE', `${S}/filters/99999`, undefined, 404],
      ['GET', `${S}/filters/subscription/x`, undefined, 400],
      ['GET', `${S}/filters/subscription/99999`, undefined, 404],
      ['POST', '/webhooks-journal/snapshots/2026-03/crm', {}, 400],
      [
        'POST',
        '/webhooks-journal/snapshots/2026-03/crm',
        { snapshotRequests: [{ objectId: 'x', objectTypeId: '0-1', portalId: 1, properties: [] }] },
        400,
      ],
      [
        'POST',
        '/webhooks-journal/snapshots/2026-03/crm',
        { snapshotRequests: new Array(101).fill({ objectId: 1, objectTypeId: '0-1', portalId: 1, properties: [] }) },
        400,
      ],
      ['GET', `/webhooks-journal/files/2026-03/${uuid}`, undefined, 403],
      ['GET', `/webhooks-journal/files/2026-03/nope?appId=1&expires=1&kid=a&signature=b`, undefined, 403],
    );
    for (const [method, url, payload, status] of cases) {
      const r = await call(x.app, method as 'GET', url, payload);
      expect({ method, url, status: r.statusCode }).toEqual({ method, url, status });
      expect(wireProblems(componentSchema('Error')!, r.json())).toEqual([]);
    }
  });
});
