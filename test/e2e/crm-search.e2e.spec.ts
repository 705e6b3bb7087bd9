import { Client } from '@hubspot/api-client';
import { rmSync } from 'node:fs';
import type { PublicObjectSearchRequest } from '@hubspot/api-client/lib/codegen/crm/contacts/index';
import { SearchExecutor } from '../../src/crm-search/application/search-executor';
import { SearchRateLimit } from '../../src/crm-search/application/search-rate-limit';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * CRM search over HTTP at v3, 2026-03 and 2026-09, and with @hubspot/api-client 14
 * (`crm.contacts.searchApi.doSearch`, only basePath changed): every operator, query, both sort forms,
 * paging and keyset paging; HubSpot's caps and the 10,000-result window; its SECONDLY limit (the
 * client's own retry gets through); the searchLagMs test control. Time is the app's ManualClock.
 */
const VERSIONS = {
  v3: '/crm/v3/objects',
  '2026-03': '/crm/objects/2026-03',
  '2026-09': '/crm/objects/2026-09',
} as const;

const PEOPLE: Array<Record<string, string> & { firstname: string }> = [
  { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace', phone: '+44 20 1', score: '10' },
  { email: 'bob@example.com', firstname: 'Bob', lastname: 'Smith', score: '5' },
  { email: 'carol@other.org', firstname: 'carol', lastname: 'Smith', score: '7.5' },
  { email: 'dan@other.org', firstname: 'Dan', lastname: 'Brown' },
  { email: 'eve@example.com', firstname: 'EVE', lastname: 'Adams', phone: '+1 555', score: '-2' },
];

let t: TestApp;
let hubId: number;
let otherHubId: number;
let token: string;
let client: Client;
/** Contact ids by first name (lower-cased). */
const ids: Record<string, string> = {};

async function call(url: string, body: unknown, options: { token?: string; raw?: string; method?: 'POST' } = {}) {
  const r = await t.inject({
    method: options.method ?? 'POST',
    url,
    headers: { authorization: `Bearer ${options.token ?? token}`, 'content-type': 'application/json' },
    payload: options.raw ?? JSON.stringify(body),
  });
  return { status: r.statusCode, headers: r.headers, text: r.body, body: r.json() as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const names = (body: { results: Array<{ properties: Record<string, string> }> }) =>
  body.results.map((r) => r.properties.firstname);

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t)).hubId;
  otherHubId = (await createAccount(t)).hubId;
  token = mintRecordsToken(t, hubId);
  client = new Client({ accessToken: token, basePath: t.url });
  await client.crm.properties.coreApi.create('contacts', {
    name: 'score',
    label: 'Score',
    type: 'number' as never,
    fieldType: 'number' as never,
    groupName: 'contactinformation',
  });
  for (const person of PEOPLE) {
    const created = await client.crm.contacts.basicApi.create({ properties: person, associations: [] });
    ids[person.firstname.toLowerCase()] = created.id;
    t.clock.advance(1000);
  }
  // Another account's contact never shows.
  await new Client({ accessToken: mintRecordsToken(t, otherHubId), basePath: t.url }).crm.contacts.basicApi.create({
    properties: { email: 'ada@elsewhere.com', firstname: 'Ada' },
    associations: [],
  });
});

afterAll(async () => {
  await t?.close();
});

describe.each(Object.entries(VERSIONS))('POST %s/{objectType}/search', (_, base) => {
  const url = `${base}/contacts/search`;

  it('answers HubSpot’s CollectionResponseWithTotalSimplePublicObject, checked against our schema', async () => {
    const r = await call(url, { filterGroups: [], sorts: ['firstname'], properties: ['firstname', 'score'], limit: 2 });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(5);
    expect(names(r.body as never)).toEqual(['Ada', 'Bob']);
    expect(r.body.paging).toEqual({ next: { after: '2' } });
    expect(r.body.results[0]).toEqual({
      id: ids.ada,
      properties: {
        firstname: 'Ada',
        score: '10',
        hs_object_id: ids.ada,
        createdate: '2026-11-22T09:00:00.000Z',
        lastmodifieddate: '2026-11-22T09:00:00.000Z',
      },
      createdAt: '2026-11-22T09:00:00.000Z',
      updatedAt: '2026-11-22T09:00:00.000Z',
      archived: false,
    });
    const template = url.replace('/contacts/', '/{objectType}/');
    expect(operationProblems('POST', template, 200, r.body)).toEqual([]);
    // JSON, its fields in the schema's order (the results come serialized from the search thread).
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.text).toBe(JSON.stringify({ total: r.body.total, results: r.body.results, paging: r.body.paging }));
    // The type by id and by singular name; the defaults when no properties are named.
    const byId = await call(`${base}/0-1/search`, { query: 'lovelace' });
    expect(byId.body).toMatchObject({ total: 1, results: [{ id: ids.ada }] });
    expect(Object.keys(byId.body.results[0].properties).sort()).toEqual([
      'createdate',
      'email',
      'firstname',
      'hs_object_id',
      'lastmodifieddate',
      'lastname',
    ]);
    expect(operationProblems('POST', template, 200, byId.body)).toEqual([]);
    // A property without a value is null (HubSpot's answer), asked or default; a name the type lacks is left out.
    const dan = await call(url, {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: 'dan@other.org' }] }],
      properties: ['score', 'phone', 'no_such_property'],
    });
    expect(dan.body.results[0].properties).toMatchObject({ score: null, phone: null });
    expect(dan.body.results[0].properties).not.toHaveProperty('no_such_property');
    expect(operationProblems('POST', template, 200, dan.body)).toEqual([]);
    // Run off the event loop: on the search thread, with its own read-only connection.
    expect(t.app.get(SearchExecutor).threadId).toBeGreaterThan(0);
  });

  it('refuses bad input with HubSpot’s VALIDATION_ERROR, naming the field', async () => {
    const bad = async (body: unknown, field: string, raw?: string) => {
      const r = await call(url, body, raw === undefined ? {} : { raw });
      expect(r.status).toBe(400);
      expect(r.body.category).toBe('VALIDATION_ERROR');
      expect(r.body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
      if (field !== '') expect(JSON.stringify(r.body)).toContain(field);
      return r.body;
    };
    await bad(undefined, '', '{"filterGroups": [');
    await bad([], 'body');
    await bad({ filterGroups: {} }, 'filterGroups');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'email', operator: 'LIKE', value: 'x' }] }] }, 'operator');
    await bad({ filterGroups: [{ filters: [{ operator: 'EQ', value: 'x' }] }] }, 'propertyName');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ' }] }] }, 'value');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'email', operator: 'IN', values: [] }] }] }, 'values');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'score', operator: 'GT', value: 'lots' }] }] }, 'lots');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'email', operator: 'CONTAINS_TOKEN', value: ' ' }] }] }, '');
    await bad({ limit: 0 }, 'limit');
    await bad({ limit: 201 }, 'limit');
    await bad({ limit: 'ten' }, 'limit');
    await bad({ after: 'next' }, 'after');
    await bad({ after: -1 }, 'after');
    await bad({ sorts: [{ propertyName: 'email', direction: 'UP' }] }, 'sorts.0.direction');
    await bad({ sorts: ['-'] }, 'sorts.0.propertyName');
    await bad({ filterGroups: [{ filters: [{ propertyName: '  ', operator: 'EQ', value: 'x' }] }] }, 'propertyName');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: { x: 1 } }] }] }, 'value');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'a', operator: 'BETWEEN', value: 1 }] }] }, 'highValue');
    await bad({ filterGroups: [{ filters: [{ propertyName: 'a', operator: 'IN', values: [[1]] }] }] }, 'values');
    await bad({ filterGroups: [{}] }, 'filterGroups.0.filters');
    // One entry per bad field, all reported at once.
    const several = await bad({ limit: 0, after: 'x', query: 5 }, '');
    expect(several.errors.map((e: { in: string }) => e.in).sort()).toEqual(['after', 'limit', 'query']);
    await bad({ properties: 'email' }, 'properties');
    await bad({ query: 'x'.repeat(3001) }, 'query');
    // A filter or sort on a property the account does not have.
    const unknown = await bad(
      {
        filterGroups: [{ filters: [{ propertyName: 'no_such', operator: 'EQ', value: 'x' }] }],
        sorts: [{ propertyName: 'nor_this' }],
      },
      'PROPERTY_DOESNT_EXIST',
    );
    expect(unknown.errors.map((e: { context: unknown }) => e.context)).toEqual([
      { propertyName: ['no_such'] },
      { propertyName: ['nor_this'] },
    ]);
    // HubSpot's caps (2024-08-26): 5 groups, 10 filters a group, 25 in all.
    const filters = (n: number) =>
      Array.from({ length: n }, () => ({ propertyName: 'email', operator: 'HAS_PROPERTY' }));
    expect((await call(url, { filterGroups: Array.from({ length: 5 }, () => ({ filters: filters(5) })) })).status).toBe(
      200,
    );
    const groups = await bad({ filterGroups: Array.from({ length: 6 }, () => ({ filters: filters(1) })) }, '');
    expect(groups.message).toBe('Too many filter groups (6). The maximum number of filter groups is 5.');
    const perGroup = await bad({ filterGroups: [{ filters: filters(11) }] }, '');
    expect(perGroup.message).toMatch(/maximum number of filters per filter group is 10/);
    const all = await bad({ filterGroups: [10, 10, 6].map((n) => ({ filters: filters(n) })) }, '');
    expect(all.message).toMatch(/maximum number of filters across all filter groups is 25/);
    // Unknown object types, missing scopes, no token.
    expect((await call(`${base}/nonsense/search`, {})).status).toBe(400);
    const noScope = await call(url, {}, { token: mintRecordsToken(t, hubId, ['crm.objects.deals.read']) });
    expect(noScope).toMatchObject({ status: 403, body: { category: 'MISSING_SCOPES' } });
    const anonymous = await t.inject({ method: 'POST', url, payload: {} });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses after + limit past 10,000 while total stays exact', async () => {
    const r = await call(url, { after: '9990', limit: 20 });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/10000/);
    const last = await call(url, { after: 9990, limit: 10 });
    expect(last).toMatchObject({ status: 200, body: { total: 5, results: [] } });
  });
});

describe('@hubspot/api-client v14 crm.contacts.searchApi.doSearch', () => {
  const search = async (request: Partial<PublicObjectSearchRequest> & Record<string, unknown>) =>
    client.crm.contacts.searchApi.doSearch({
      filterGroups: [],
      sorts: ['firstname'],
      properties: ['firstname', 'lastname', 'email', 'score'],
      limit: 100,
      after: undefined as never,
      ...request,
    } as PublicObjectSearchRequest);
  const only = (propertyName: string, operator: string, more: Record<string, unknown>) =>
    search({ filterGroups: [{ filters: [{ propertyName, operator, ...more } as never] }] });
  const firstNames = (page: { results: Array<{ properties: Record<string, string | null> }> }) =>
    page.results.map((r) => r.properties.firstname);

  it('every operator (string comparisons without case, numbers as numbers)', async () => {
    expect(firstNames(await only('firstname', 'EQ', { value: 'ada' }))).toEqual(['Ada']);
    expect(firstNames(await only('email', 'EQ', { value: 'BOB@EXAMPLE.COM' }))).toEqual(['Bob']);
    expect(firstNames(await only('lastname', 'NEQ', { value: 'smith' }))).toEqual(['Ada', 'Dan', 'EVE']);
    expect(firstNames(await only('score', 'LT', { value: '7.5' }))).toEqual(['Bob', 'EVE']);
    expect(firstNames(await only('score', 'LTE', { value: '7.5' }))).toEqual(['Bob', 'carol', 'EVE']);
    expect(firstNames(await only('score', 'GT', { value: '7' }))).toEqual(['Ada', 'carol']);
    expect(firstNames(await only('score', 'GTE', { value: '10' }))).toEqual(['Ada']);
    expect(firstNames(await only('score', 'BETWEEN', { value: '0', highValue: '7.5' }))).toEqual(['Bob', 'carol']);
    expect(firstNames(await only('firstname', 'LT', { value: 'c' }))).toEqual(['Ada', 'Bob']);
    expect(firstNames(await only('firstname', 'IN', { values: ['ada', 'eve'] }))).toEqual(['Ada', 'EVE']);
    expect(firstNames(await only('firstname', 'NOT_IN', { values: ['ada', 'eve'] }))).toEqual(['Bob', 'carol', 'Dan']);
    expect(firstNames(await only('phone', 'HAS_PROPERTY', {}))).toEqual(['Ada', 'EVE']);
    expect(firstNames(await only('score', 'NOT_HAS_PROPERTY', {}))).toEqual(['Dan']);
    expect(firstNames(await only('email', 'CONTAINS_TOKEN', { value: '*@other.org' }))).toEqual(['carol', 'Dan']);
    expect(firstNames(await only('lastname', 'CONTAINS_TOKEN', { value: 'SMITH' }))).toEqual(['Bob', 'carol']);
    expect(firstNames(await only('email', 'NOT_CONTAINS_TOKEN', { value: 'example' }))).toEqual(['carol', 'Dan']);
    expect(firstNames(await only('createdate', 'GTE', { value: String(Date.UTC(2026, 10, 22, 9, 0, 3)) }))).toEqual([
      'Dan',
      'EVE',
    ]);
    expect(firstNames(await only('hs_object_id', 'EQ', { value: ids.bob }))).toEqual(['Bob']);
  });

  it('filter groups are OR’d, filters within a group AND’d; total counts each record once', async () => {
    const page = await search({
      filterGroups: [
        { filters: [{ propertyName: 'lastname', operator: 'EQ' as never, value: 'smith' }] },
        {
          filters: [
            { propertyName: 'email', operator: 'CONTAINS_TOKEN' as never, value: 'example' },
            { propertyName: 'score', operator: 'GT' as never, value: '0' },
          ],
        },
      ],
    });
    expect(firstNames(page)).toEqual(['Ada', 'Bob', 'carol']);
    expect(page.total).toBe(3);
  });

  it('query: free text over the default searchable properties (word prefixes)', async () => {
    expect(firstNames(await search({ query: 'smi' }))).toEqual(['Bob', 'carol']);
    expect(firstNames(await search({ query: 'ada lovelace' }))).toEqual(['Ada']);
    expect(firstNames(await search({ query: 'other.org' }))).toEqual(['carol', 'Dan']);
    expect(firstNames(await search({ query: '555' }))).toEqual(['EVE']);
    expect(firstNames(await search({ query: 'nobody' }))).toEqual([]);
  });

  it('sorts as objects or as "-property" strings; records without the value last', async () => {
    expect(firstNames(await search({ sorts: ['-score'] }))).toEqual(['Ada', 'carol', 'Bob', 'EVE', 'Dan']);
    expect(firstNames(await search({ sorts: [{ propertyName: 'score', direction: 'ASCENDING' }] as never }))).toEqual([
      'EVE',
      'Bob',
      'carol',
      'Ada',
      'Dan',
    ]);
    expect(firstNames(await search({ sorts: ['-createdate'] }))).toEqual(['EVE', 'Dan', 'carol', 'Bob', 'Ada']);
    expect(
      firstNames(await search({ sorts: [{ propertyName: 'lastname', direction: 'DESCENDING' }] as never })),
    ).toEqual(['Bob', 'carol', 'Ada', 'Dan', 'EVE']);
  });

  it('pages with after (string or number) until paging ends', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await search({ limit: 2, ...(after === undefined ? {} : { after }) });
      expect(page.total).toBe(5);
      seen.push(...(firstNames(page) as string[]));
      after = page.paging?.next?.after;
      pages++;
    } while (after !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(['Ada', 'Bob', 'carol', 'Dan', 'EVE']);
    const numeric = await call('/crm/v3/objects/contacts/search', { sorts: ['firstname'], after: 4, limit: 2 });
    expect(names(numeric.body as never)).toEqual(['EVE']);
    expect(numeric.body.paging).toBeUndefined();
  });

  it('keyset paging: hs_object_id GT the last id, sorted by hs_object_id ascending', async () => {
    const seen: string[] = [];
    let last = '0';
    for (;;) {
      const page = await search({
        filterGroups: [{ filters: [{ propertyName: 'hs_object_id', operator: 'GT' as never, value: last }] }],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }] as never,
        limit: 2,
      });
      if (page.results.length === 0) break;
      seen.push(...page.results.map((r) => r.id));
      last = page.results.at(-1)!.id;
    }
    expect(seen).toEqual(PEOPLE.map((p) => ids[p.firstname.toLowerCase()]));
  });

  it('HubSpot’s errors come back to the client as its ApiException with the Error body', async () => {
    const failure = await search({ limit: 500 }).catch((e: { code: number; body: unknown }) => e);
    expect(failure).toMatchObject({ code: 400, body: { category: 'VALIDATION_ERROR' } });
  });

  it('sees its own writes: an update and an archive show in the next search', async () => {
    await client.crm.contacts.basicApi.update(ids.dan!, { properties: { score: '99', lastname: '' } });
    expect(firstNames(await only('score', 'GT', { value: '50' }))).toEqual(['Dan']);
    expect(firstNames(await only('lastname', 'NOT_HAS_PROPERTY', {}))).toEqual(['Dan']);
    const temp = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Zoe' }, associations: [] });
    expect(firstNames(await only('firstname', 'EQ', { value: 'zoe' }))).toEqual(['Zoe']);
    await client.crm.contacts.basicApi.archive(temp.id);
    expect(firstNames(await only('firstname', 'EQ', { value: 'zoe' }))).toEqual([]);
  });

  it('sees property writes: a property created, then archived, is known to the next search and then unknown', async () => {
    const byShoeSize = { filterGroups: [{ filters: [{ propertyName: 'shoesize', operator: 'GT', value: '40' }] }] };
    const unknown = {
      status: 400,
      body: { errors: [{ code: 'PROPERTY_DOESNT_EXIST', in: 'filterGroups.filters.propertyName' }] },
    };
    const url = '/crm/v3/objects/contacts/search';
    expect(await call(url, byShoeSize)).toMatchObject(unknown);
    await client.crm.properties.coreApi.create('contacts', {
      name: 'shoesize',
      label: 'Shoe size',
      type: 'number' as never,
      fieldType: 'number' as never,
      groupName: 'contactinformation',
    });
    expect((await call(url, byShoeSize)).body).toMatchObject({ total: 0 });
    await client.crm.contacts.basicApi.update(ids.eve!, { properties: { shoesize: '42' } });
    // Compared as a number (the new property's kind): "42" > "40", and "9" is not.
    await client.crm.contacts.basicApi.update(ids.bob!, { properties: { shoesize: '9' } });
    const found = await call(url, { ...byShoeSize, properties: ['shoesize'] });
    expect(found.body).toMatchObject({ total: 1, results: [{ id: ids.eve, properties: { shoesize: '42' } }] });
    await client.crm.properties.coreApi.archive('contacts', 'shoesize');
    expect(await call(url, byShoeSize)).toMatchObject(unknown);
  });
});

describe('searchLagMs: HubSpot’s search lag as a test control', () => {
  const lagUrl = () => `/admin/v1/accounts/${hubId}/search-lag`;

  it('is off by default; set, it hides records younger than the lag; recorded as an event; 0 turns it off', async () => {
    expect((await t.admin('GET', lagUrl())).json()).toEqual({ hubId, searchLagMs: 0 });
    const set = await t.admin('PUT', lagUrl(), { searchLagMs: 5000 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ hubId, searchLagMs: 5000 });
    expect((await t.admin('GET', lagUrl())).json()).toEqual({ hubId, searchLagMs: 5000 });

    const fresh = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Fay' }, associations: [] });
    const find = () => call('/crm/v3/objects/contacts/search', { query: 'fay' });
    expect((await find()).body.total).toBe(0); // a search right after the create misses it, as on HubSpot
    expect((await client.crm.contacts.basicApi.getById(fresh.id)).id).toBe(fresh.id); // reads do not lag
    t.clock.advance(4999);
    expect((await find()).body.total).toBe(0);
    t.clock.advance(1);
    expect((await find()).body.results.map((r: { id: string }) => r.id)).toEqual([fresh.id]);

    const events = (await t.admin('GET', '/admin/v1/events?limit=1000')).json() as {
      results: Array<{ type: string; streamId: string; data: unknown; metadata: { actor: string } }>;
    };
    const recorded = events.results.filter((e) => e.type === 'search.SearchLagSet');
    expect(recorded.at(-1)).toMatchObject({ streamId: `search.lag-${hubId}`, data: { hubId, lagMs: 5000 } });

    expect((await t.admin('PUT', lagUrl(), { searchLagMs: 0 })).json()).toEqual({ hubId, searchLagMs: 0 });
    const another = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Gus' }, associations: [] });
    expect((await call('/crm/v3/objects/contacts/search', { query: 'gus' })).body.results[0].id).toBe(another.id);
  });

  it('refuses bad input and unknown accounts; needs the admin key', async () => {
    for (const body of [
      {},
      { searchLagMs: -1 },
      { searchLagMs: 'soon' },
      { searchLagMs: 3_600_001 },
      { searchLagMs: 1.5 },
    ]) {
      const r = await t.admin('PUT', lagUrl(), body);
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ category: 'VALIDATION_ERROR' });
    }
    expect((await t.admin('PUT', '/admin/v1/accounts/99999999/search-lag', { searchLagMs: 1 })).statusCode).toBe(404);
    expect((await t.admin('GET', '/admin/v1/accounts/abc/search-lag')).statusCode).toBe(400);
    const noKey = await t.inject({ method: 'PUT', url: lagUrl(), payload: { searchLagMs: 1 } });
    expect(noKey.statusCode).toBe(401);
  });
});

describe('searchLagMs across a restart', () => {
  it('is kept: reloaded from its read model, still applied to searches', async () => {
    const first = await startTestApp();
    const hub = (await createAccount(first)).hubId;
    expect((await first.admin('PUT', `/admin/v1/accounts/${hub}/search-lag`, { searchLagMs: 60_000 })).statusCode).toBe(
      200,
    );
    await first.close({ keepData: true });
    const again = await startTestApp({ dataDir: first.dataDir, clock: first.clock });
    try {
      expect((await again.admin('GET', `/admin/v1/accounts/${hub}/search-lag`)).json()).toEqual({
        hubId: hub,
        searchLagMs: 60_000,
      });
      const tok = mintRecordsToken(again, hub);
      const headers = { authorization: `Bearer ${tok}`, 'content-type': 'application/json' };
      const created = await again.inject({
        method: 'POST',
        url: '/crm/v3/objects/contacts',
        headers,
        payload: JSON.stringify({ properties: { firstname: 'Hana' } }),
      });
      expect(created.statusCode).toBe(201);
      const search = () =>
        again.inject({ method: 'POST', url: '/crm/v3/objects/contacts/search', headers, payload: '{"query":"hana"}' });
      expect((await search()).json()).toMatchObject({ total: 0 });
      again.clock.advance(60_000);
      expect((await search()).json()).toMatchObject({ total: 1 });
    } finally {
      await again.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});

describe('HubSpot’s search limit: 5 searches a second per account', () => {
  let limited: TestApp;
  let hub: number;
  let otherHub: number;

  beforeAll(async () => {
    limited = await startTestApp({ listen: true, env: { RATE_LIMIT_ENABLED: 'true' } });
    hub = (await createAccount(limited)).hubId;
    otherHub = (await createAccount(limited)).hubId;
  });
  afterAll(async () => {
    await limited?.close();
  });

  const searchAs = (hubOf: number) =>
    limited.inject({
      method: 'POST',
      url: '/crm/v3/objects/contacts/search',
      headers: {
        authorization: `Bearer ${mintRecordsToken(limited, hubOf)}`,
        'content-type': 'application/json',
      },
      payload: '{}',
    });

  it('the 6th search within a second is HubSpot’s SECONDLY 429; the next second has room again', async () => {
    for (let i = 0; i < 5; i++) expect((await searchAs(hub)).statusCode).toBe(200);
    const refused = await searchAs(hub);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      status: 'error',
      message: 'You have reached your secondly limit.',
      errorType: 'RATE_LIMIT',
      correlationId: refused.headers['x-hubspot-correlation-id'],
      policyName: 'SECONDLY',
      category: 'RATE_LIMITS',
    });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-hubspot-ratelimit-max']).toBe('5');
    expect(refused.headers['x-hubspot-ratelimit-remaining']).toBe('0');
    // Per account: another account's searches are not counted here.
    expect((await searchAs(otherHub)).statusCode).toBe(200);
    limited.clock.advance(1000);
    expect((await searchAs(hub)).statusCode).toBe(200);
  });

  it('@hubspot/api-client’s own retry gets through after the SECONDLY 429', async () => {
    limited.clock.advance(1000);
    for (let i = 0; i < 5; i++) expect((await searchAs(hub)).statusCode).toBe(200);
    // The client waits a second (its own timer) before retrying; the service's clock moves on the
    // 429 itself, so the retry finds room whatever the real wait was.
    const limits = limited.app.get(SearchRateLimit);
    const refusedHubs: number[] = [];
    const onLimited = (h: number) => {
      refusedHubs.push(h);
      limited.clock.advance(1000);
    };
    limits.events.on('limited', onLimited);
    try {
      const retrying = new Client({
        accessToken: mintRecordsToken(limited, hub),
        basePath: limited.url,
        numberOfApiCallRetries: 2,
      });
      const page = await retrying.crm.contacts.searchApi.doSearch({
        filterGroups: [],
        sorts: [],
        properties: [],
        limit: 10,
        after: '0',
      });
      expect(page.total).toBe(0);
      expect(refusedHubs).toEqual([hub]);
    } finally {
      limits.events.off('limited', onLimited);
    }
  });
});
