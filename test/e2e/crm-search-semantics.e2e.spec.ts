import { Client } from '@hubspot/api-client';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * Search semantics over HTTP (with @hubspot/api-client 14 where it has the call): the search lag on
 * updates and archives (the index as of `now - lag`, on the app's ManualClock), multi-checkbox
 * properties compared option by option, and the `associations.{type}` pseudo-property.
 */
let t: TestApp;
let hubId: number;
let token: string;
let client: Client;
const SEARCH = '/crm/v3/objects/contacts/search';
const TEMPLATE = '/crm/v3/objects/{objectType}/search';

async function search(body: unknown, url = SEARCH) {
  const r = await t.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  const json = r.json() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (r.statusCode === 200) expect(operationProblems('POST', TEMPLATE, 200, json)).toEqual([]);
  return { status: r.statusCode, body: json };
}

const filter = (propertyName: string, operator: string, more: Record<string, unknown> = {}) => ({
  filterGroups: [{ filters: [{ propertyName, operator, ...more }] }],
  properties: ['firstname', 'interests'],
  sorts: ['hs_object_id'],
});
const ids = (body: { results: Array<{ id: string }> }) => body.results.map((r) => r.id);

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t)).hubId;
  token = mintRecordsToken(t, hubId);
  client = new Client({ accessToken: token, basePath: t.url });
});

afterAll(async () => {
  await t?.close();
});

describe('searchLagMs on updates and archives: the index as of now - lag', () => {
  const lagUrl = () => `/admin/v1/accounts/${hubId}/search-lag`;
  afterAll(async () => {
    await t.admin('PUT', lagUrl(), { searchLagMs: 0 });
  });

  it('shows the old values until the lag has passed, then the new ones', async () => {
    const ivy = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Ivy' }, associations: [] });
    t.clock.advance(10_000);
    expect((await t.admin('PUT', lagUrl(), { searchLagMs: 5000 })).statusCode).toBe(200);
    const createdAt = new Date(t.clock.now() - 10_000).toISOString();
    await client.crm.contacts.basicApi.update(ivy.id, { properties: { firstname: 'Ivana', lastname: 'Lee' } });
    const byName = (name: string) => search(filter('firstname', 'EQ', { value: name }));

    const before = await byName('ivy');
    expect(ids(before.body as never)).toEqual([ivy.id]);
    // The result is the record as it was indexed then: old values, old modification date.
    expect(before.body.results[0]).toMatchObject({
      properties: { firstname: 'Ivy' },
      updatedAt: createdAt,
    });
    expect((await byName('ivana')).body.total).toBe(0);
    expect((await search(filter('lastname', 'HAS_PROPERTY'))).body.total).toBe(0);
    expect((await client.crm.contacts.basicApi.getById(ivy.id)).properties.firstname).toBe('Ivana'); // reads do not lag

    t.clock.advance(4999);
    expect((await byName('ivy')).body.total).toBe(1);
    t.clock.advance(1);
    expect((await byName('ivy')).body.total).toBe(0);
    const after = await byName('ivana');
    expect(ids(after.body as never)).toEqual([ivy.id]);
    expect(after.body.results[0].properties.firstname).toBe('Ivana');
    expect(ids((await search(filter('lastname', 'HAS_PROPERTY'))).body as never)).toEqual([ivy.id]);
  });

  it('still finds an archived record until the lag has passed (query and filters alike)', async () => {
    const jon = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Jonah' }, associations: [] });
    t.clock.advance(6000);
    await client.crm.contacts.basicApi.archive(jon.id);
    expect(ids((await search({ query: 'jonah' })).body as never)).toEqual([jon.id]);
    t.clock.advance(5000);
    expect((await search({ query: 'jonah' })).body.total).toBe(0);
    expect((await search(filter('hs_object_id', 'EQ', { value: jon.id }))).body.total).toBe(0);
  });

  it('without a lag, an update and an archive show at once (read-your-writes)', async () => {
    await t.admin('PUT', lagUrl(), { searchLagMs: 0 });
    const kim = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Kim' }, associations: [] });
    await client.crm.contacts.basicApi.update(kim.id, { properties: { firstname: 'Kimberly' } });
    expect(ids((await search(filter('firstname', 'EQ', { value: 'kimberly' }))).body as never)).toEqual([kim.id]);
    await client.crm.contacts.basicApi.archive(kim.id);
    expect((await search(filter('firstname', 'EQ', { value: 'kimberly' }))).body.total).toBe(0);
  });
});

describe('multi-checkbox properties compare option by option', () => {
  const people: Record<string, string> = {};

  beforeAll(async () => {
    await client.crm.properties.coreApi.create('contacts', {
      name: 'interests',
      label: 'Interests',
      type: 'enumeration' as never,
      fieldType: 'checkbox' as never,
      groupName: 'contactinformation',
      options: ['Sailing', 'Chess', 'Golf'].map((label, i) => ({
        label,
        value: label.toLowerCase(),
        displayOrder: i,
        hidden: false,
      })),
    });
    for (const [firstname, interests] of [
      ['Lea', 'sailing;chess'],
      ['Max', 'chess'],
      ['Noa', 'golf'],
      ['Oli', ''],
    ] as const) {
      const created = await client.crm.contacts.basicApi.create({
        properties: { firstname, ...(interests ? { interests } : {}) },
        associations: [],
      });
      people[firstname] = created.id;
    }
  });

  const found = async (operator: string, more: Record<string, unknown>) => {
    const r = await search(filter('interests', operator, more));
    expect(r.status).toBe(200);
    return ids(r.body as never);
  };

  it('EQ, NEQ, IN, NOT_IN, CONTAINS_TOKEN and NOT_CONTAINS_TOKEN take each selected option', async () => {
    const { Lea, Max, Noa, Oli } = people as Record<string, string>;
    expect(await found('EQ', { value: 'chess' })).toEqual([Lea, Max]);
    expect(await found('EQ', { value: 'CHESS' })).toEqual([Lea, Max]);
    expect(await found('EQ', { value: 'sailing;chess' })).toEqual([]); // an option, not the whole text
    expect(await found('IN', { values: ['sailing', 'golf'] })).toEqual([Lea, Noa]);
    expect(await found('CONTAINS_TOKEN', { value: 'sail*' })).toEqual([Lea]);
    const everyone = ids((await search({ ...filter('firstname', 'HAS_PROPERTY'), limit: 100 })).body as never);
    const others = (kept: string[]) => everyone.filter((id) => !kept.includes(id));
    expect(await found('NEQ', { value: 'chess' })).toEqual(others([Lea, Max]).slice(0, 10));
    expect(await found('NOT_IN', { values: ['chess', 'golf'] })).toEqual(others([Lea, Max, Noa]).slice(0, 10));
    expect(await found('NOT_CONTAINS_TOKEN', { value: 'golf' })).toContain(Oli);
    expect(await found('HAS_PROPERTY', {})).toEqual([Lea, Max, Noa]);
  });

  it('through @hubspot/api-client: doSearch with IN on a multi-checkbox', async () => {
    const page = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'interests', operator: 'IN' as never, values: ['chess'] }] }],
      properties: ['interests'],
      sorts: ['hs_object_id'],
      limit: 10,
      after: '0',
    });
    expect(page.results.map((r) => [r.id, r.properties.interests])).toEqual([
      [people.Lea, 'sailing;chess'],
      [people.Max, 'chess'],
    ]);
  });
});

describe('associations.{objectType} in search filters', () => {
  let acme: string;
  let globex: string;
  const contacts: string[] = [];

  beforeAll(async () => {
    acme = (await client.crm.companies.basicApi.create({ properties: { name: 'Acme' }, associations: [] })).id;
    globex = (await client.crm.companies.basicApi.create({ properties: { name: 'Globex' }, associations: [] })).id;
    for (const firstname of ['Pia', 'Quin', 'Ray']) {
      contacts.push((await client.crm.contacts.basicApi.create({ properties: { firstname }, associations: [] })).id);
    }
    await client.crm.associations.v4.basicApi.createDefault('contacts', contacts[0]!, 'companies', acme);
    await client.crm.associations.v4.basicApi.createDefault('contacts', contacts[1]!, 'companies', acme);
    await client.crm.associations.v4.basicApi.createDefault('contacts', contacts[1]!, 'companies', globex);
  });

  const associated = async (propertyName: string, operator: string, more: Record<string, unknown> = {}) => {
    const r = await search({
      filterGroups: [
        {
          filters: [
            { propertyName, operator, ...more },
            { propertyName: 'hs_object_id', operator: 'IN', values: contacts },
          ],
        },
      ],
      sorts: ['hs_object_id'],
    });
    expect(r.status).toBe(200);
    return ids(r.body as never);
  };

  it('EQ, IN, NEQ, NOT_IN, HAS_PROPERTY, NOT_HAS_PROPERTY on the records associated with ids', async () => {
    const [pia, quin, ray] = contacts as [string, string, string];
    expect(await associated('associations.company', 'EQ', { value: acme })).toEqual([pia, quin]);
    expect(await associated('associations.companies', 'EQ', { value: globex })).toEqual([quin]);
    expect(await associated('associations.0-2', 'IN', { values: [globex, '999999'] })).toEqual([quin]);
    expect(await associated('associations.company', 'NEQ', { value: acme })).toEqual([ray]);
    expect(await associated('associations.company', 'NOT_IN', { values: [globex] })).toEqual([pia, ray]);
    expect(await associated('associations.company', 'HAS_PROPERTY')).toEqual([pia, quin]);
    expect(await associated('associations.company', 'NOT_HAS_PROPERTY')).toEqual([ray]);
    // From the other side: the companies associated with a contact.
    const companies = await search(
      { filterGroups: [{ filters: [{ propertyName: 'associations.contact', operator: 'EQ', value: quin }] }] },
      '/crm/v3/objects/companies/search',
    );
    expect(ids(companies.body as never).sort()).toEqual([acme, globex].sort());
  });

  it('follows removals and archives: an archived company is no longer associated', async () => {
    const [pia, quin] = contacts as [string, string, string];
    await client.crm.associations.v4.basicApi.archive('contacts', pia, 'companies', acme);
    expect(await associated('associations.company', 'EQ', { value: acme })).toEqual([quin]);
    await client.crm.companies.basicApi.archive(globex);
    expect(await associated('associations.company', 'EQ', { value: globex })).toEqual([]);
    expect(await associated('associations.company', 'HAS_PROPERTY')).toEqual([quin]);
  });

  it('through @hubspot/api-client: doSearch with associations.company EQ', async () => {
    const page = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'associations.company', operator: 'EQ' as never, value: acme }] }],
      limit: 10,
      after: '0',
      sorts: [],
      properties: [],
    });
    expect(page.results.map((r) => r.id)).toEqual([contacts[1]]);
  });

  it('refuses other operators, values that are not ids, and types it does not know (HubSpot’s 400s)', async () => {
    const lt = await search(filter('associations.company', 'LT', { value: acme }));
    expect(lt.status).toBe(400);
    expect(lt.body).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'filterGroups.filters.operator' }] });
    const notId = await search(filter('associations.company', 'EQ', { value: 'acme' }));
    expect(notId.status).toBe(400);
    expect(notId.body).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'filterGroups.filters.value' }] });
    const unknown = await search(filter('associations.spaceships', 'EQ', { value: '1' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      errors: [{ code: 'PROPERTY_DOESNT_EXIST', context: { propertyName: ['associations.spaceships'] } }],
    });
    const sorted = await search({ sorts: ['associations.company'] });
    expect(sorted.status).toBe(400);
    expect(sorted.body.errors[0]).toMatchObject({ code: 'PROPERTY_DOESNT_EXIST', in: 'sorts.propertyName' });
  });
});
