import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ConsoleClient } from '../support/console-client';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/** /console/records: CRM search's free text and a property with an operator; custom objects' records. */
describe('console records: search and custom objects', () => {
  let t: TestApp;
  let hubId: number;
  let c: ConsoleClient;
  let token: string;
  let carsTypeId: string;
  const ids: Record<string, string> = {};

  const call = async (method: 'POST' | 'GET', url: string, payload?: unknown) => {
    const r = await t.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.json() as { id: string; objectTypeId: string };
  };
  /** Every read model (search's included) caught up with the committed events. */
  const settled = async () =>
    t.app.get(ProjectionRunner).waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition());
  /** The record ids a page lists, in order. */
  const listed = (body: string, type: string) =>
    [...body.matchAll(new RegExp(`/console/records/${hubId}/${type}/(\\d+)"`, 'g'))].map((m) => m[1]);

  beforeAll(async () => {
    t = await startTestApp();
    hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
    token = mintRecordsToken(t, hubId);
    for (const [key, properties] of Object.entries({
      ada: { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace', company: 'Analytical Engines' },
      grace: { email: 'grace@example.com', firstname: 'Grace', lastname: 'Hopper', company: 'Navy' },
      alan: { email: 'alan@example.org', firstname: 'Alan', lastname: 'Turing', company: 'Bletchley' },
    })) {
      ids[key] = (await call('POST', '/crm/v3/objects/contacts', { properties })).id;
    }
    carsTypeId = (
      await call('POST', '/crm/v3/schemas', {
        name: 'cars',
        labels: { singular: 'Car', plural: 'Cars' },
        primaryDisplayProperty: 'model',
        requiredProperties: ['model'],
        properties: [
          { name: 'model', label: 'Model', type: 'string', fieldType: 'text' },
          { name: 'year', label: 'Year', type: 'number', fieldType: 'number' },
        ],
        associatedObjects: ['CONTACT'],
      })
    ).objectTypeId;
    ids.beetle = (
      await call('POST', `/crm/v3/objects/${carsTypeId}`, { properties: { model: 'Beetle', year: '1938' } })
    ).id;
    ids.mini = (
      await call('POST', `/crm/v3/objects/${carsTypeId}`, { properties: { model: 'Mini', year: '1959' } })
    ).id;
    await settled();
    c = new ConsoleClient(t);
    await c.signIn();
  }, 30_000);
  afterAll(() => t.close());

  it('finds contacts by free text (CRM search’s query over the searchable properties)', async () => {
    const r = await c.get(`/console/records?hubId=${hubId}&type=0-1&q=lovelace`);
    expect(r.statusCode).toBe(200);
    expect(listed(r.body, '0-1')).toEqual([ids.ada]);
    expect(r.body).toContain('1 found');
    expect(listed((await c.get(`/console/records?hubId=${hubId}&type=0-1&q=navy`)).body, '0-1')).toEqual([ids.grace]);
  });

  it('filters by a property with an operator, and combines it with free text', async () => {
    const by = async (query: string) =>
      listed((await c.get(`/console/records?hubId=${hubId}&type=0-1&${query}`)).body, '0-1');
    expect(await by('property=email&operator=EQ&value=GRACE%40example.com')).toEqual([ids.grace]);
    expect(await by('property=email&operator=NEQ&value=grace%40example.com')).toEqual([ids.ada, ids.alan]);
    expect(await by('property=lastname&operator=IN&value=turing,%20hopper')).toEqual([ids.grace, ids.alan]);
    expect(await by('property=company&operator=HAS_PROPERTY')).toEqual([ids.ada, ids.grace, ids.alan]);
    expect(await by('property=firstname&operator=GT&value=B')).toEqual([ids.grace]);
    expect(await by('q=example.com&property=firstname&operator=EQ&value=ada')).toEqual([ids.ada]);
    // No property and no text: every record by id.
    expect(await by('')).toEqual([ids.ada, ids.grace, ids.alan]);
  });

  it('pages search results in id order by the last id shown', async () => {
    const paged: string[] = [];
    for (const batch of [0, 1]) {
      const inputs = Array.from({ length: 60 }, (_, i) => ({
        properties: { email: `p${batch * 60 + i}@paging.example.net` },
      }));
      const created = await t.inject({
        method: 'POST',
        url: '/crm/v3/objects/contacts/batch/create',
        headers: { authorization: `Bearer ${token}` },
        payload: { inputs },
      });
      expect(created.statusCode).toBe(201);
      paged.push(...(created.json() as { results: Array<{ id: string }> }).results.map((r) => r.id));
    }
    paged.sort((a, b) => Number(a) - Number(b));
    await settled();
    const first = await c.get(`/console/records?hubId=${hubId}&type=0-1&q=paging.example.net`);
    expect(first.body).toContain('120 found');
    expect(listed(first.body, '0-1')).toEqual(paged.slice(0, 100));
    const next = /href="(\/console\/records\?[^"]+)">Next records/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    expect(next).toContain(`after=${paged[99]}`);
    const second = await c.get(next);
    expect(listed(second.body, '0-1')).toEqual(paged.slice(100));
    expect(second.body).not.toContain('Next records');
  });

  it('lists and searches a custom object’s records, and opens one', async () => {
    const page = await c.get(`/console/records?hubId=${hubId}`);
    expect(page.body).toContain(`<option value="${carsTypeId}">Cars (${carsTypeId})</option>`);
    const cars = await c.get(`/console/records?hubId=${hubId}&type=${carsTypeId}`);
    expect(cars.statusCode).toBe(200);
    expect(listed(cars.body, carsTypeId)).toEqual([ids.beetle, ids.mini]);
    expect(cars.body).toContain('model: Beetle');
    const newer = await c.get(
      `/console/records?hubId=${hubId}&type=${carsTypeId}&property=year&operator=GTE&value=1950`,
    );
    expect(listed(newer.body, carsTypeId)).toEqual([ids.mini]);
    expect(
      listed((await c.get(`/console/records?hubId=${hubId}&type=${carsTypeId}&q=beetle`)).body, carsTypeId),
    ).toEqual([ids.beetle]);
    const one = await c.get(`/console/records/${hubId}/${carsTypeId}/${ids.mini}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain('<code>model</code>');
    expect(one.body).toContain('Mini');
  });

  it('answers 400 pages to what search refuses, and escapes what it shows', async () => {
    for (const query of [
      'property=nosuchproperty&operator=EQ&value=x',
      'property=email&operator=BETWEEN&value=a',
      'property=email&operator=nope&value=a',
      'value=orphan',
      `q=${Array.from({ length: 40 }, (_, i) => `w${i}`).join('%20')}`,
      'type=2-999999',
    ]) {
      const r = await c.get(`/console/records?hubId=${hubId}&type=0-1&${query}`.replace('type=0-1&type=', 'type='));
      expect([query, r.statusCode]).toEqual([query, 400]);
      expect(r.headers['content-type']).toContain('text/html');
    }
    // Under a search lag the page is search's own answer, paged by its offset within its window.
    const lagUrl = `/admin/v1/accounts/${hubId}/search-lag`;
    expect((await t.admin('PUT', lagUrl, { searchLagMs: 1000 })).statusCode).toBe(200);
    try {
      t.clock.advance(1000);
      const lagged = await c.get(`/console/records?hubId=${hubId}&type=0-1&q=example.com`);
      expect(listed(lagged.body, '0-1')).toEqual([ids.ada, ids.grace]);
      expect(lagged.body).toContain('2 found');
      expect((await c.get(`/console/records?hubId=${hubId}&type=0-1&q=ada&offset=99999`)).statusCode).toBe(400);
    } finally {
      await t.admin('PUT', lagUrl, { searchLagMs: 0 });
    }
    const xss = await c.get(`/console/records?hubId=${hubId}&type=0-1&q=%3Cscript%3Ealert(1)%3C/script%3E`);
    expect(xss.statusCode).toBe(200);
    expect(xss.body).not.toContain('<script>alert(1)</script>');
    expect(xss.body).toContain('&lt;script&gt;');
  });
});
