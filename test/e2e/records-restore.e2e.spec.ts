import { Client } from '@hubspot/api-client';
import { recordStream } from '../../src/crm-records/crm-records.events';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { oauthFixture, installAndExchange } from '../support/oauth-fixtures';
import { operationProblems } from '../support/wire-schemas';

/**
 * Restore of archived records (HubSpot's UI recycle bin; here the admin route that stands in for
 * it), and the associations a merge moves to the primary, read as apps read them: the objects API
 * at its three versions and @hubspot/api-client v14.
 */
let t: TestApp;
let client: Client;
let hubId: number;
let token: string;

const DAY_S = 24 * 60 * 60;

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t)).hubId;
  token = mintRecordsToken(t, hubId);
  client = new Client({ accessToken: token, basePath: t.url });
});

afterAll(async () => {
  await t?.close();
});

const restorePath = (type: string, id: string, hub = hubId) =>
  `/admin/v1/accounts/${hub}/crm/objects/${type}/${id}/restore`;

const restore = (type: string, id: string, body: unknown = {}) => t.admin('POST', restorePath(type, id), body);

const get = (url: string) => t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

async function failure(p: Promise<unknown>): Promise<{ code: number; body: { category: string; message: string } }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

describe('restore of archived records', () => {
  it('a contact is live again under its id with its values, at every version; archived=true no longer lists it', async () => {
    const created = await client.crm.contacts.basicApi.create({
      properties: { email: 'back@example.com', firstname: 'Back', lastname: 'Again' },
    });
    await client.crm.contacts.basicApi.update(created.id, { properties: { firstname: 'Returned' } });
    await client.crm.contacts.basicApi.archive(created.id);
    const archivedPage = await client.crm.contacts.basicApi.getPage(
      100,
      undefined,
      undefined,
      undefined,
      undefined,
      true,
    );
    expect(archivedPage.results.map((r) => r.id)).toContain(created.id);

    t.clock.advance(60_000);
    const r = await restore('contacts', created.id, { userId: 7 });
    expect(r.statusCode).toBe(200);
    const body = r.json() as { id: string; archived: boolean; properties: Record<string, string>; updatedAt: string };
    expect(body).toMatchObject({
      id: created.id,
      archived: false,
      properties: { email: 'back@example.com', firstname: 'Returned', lastname: 'Again' },
    });
    expect(operationProblems('POST', '/crm/v3/objects/{objectType}', 201, body)).toEqual([]);
    // HubSpot sets the modified date on a restore; the creation date stays.
    expect(Date.parse(body.updatedAt)).toBe(t.clock.now());

    for (const base of ['/crm/v3/objects/contacts', '/crm/objects/2026-03/contacts', '/crm/objects/2026-09/0-1']) {
      const one = await get(`${base}/${created.id}?properties=firstname,email`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toMatchObject({ id: created.id, archived: false, properties: { firstname: 'Returned' } });
      expect((await get(`${base}/${created.id}?archived=true`)).statusCode).toBe(404);
      const live = (await get(`${base}?limit=100`)).json() as { results: { id: string }[] };
      expect(live.results.map((x) => x.id)).toContain(created.id);
      const archived = (await get(`${base}?limit=100&archived=true`)).json() as { results: { id: string }[] };
      expect(archived.results.map((x) => x.id)).not.toContain(created.id);
    }
    // Its e-mail is its own again: a create with it is HubSpot's 409 naming it.
    expect(
      await failure(client.crm.contacts.basicApi.create({ properties: { email: 'BACK@example.com' } })),
    ).toMatchObject({ code: 409, body: { message: `Contact already exists. Existing ID: ${created.id}` } });
    // Its history is a read of its stream: the values it was restored with are the ones written before.
    const history = await client.crm.contacts.basicApi.getById(created.id, undefined, ['firstname']);
    expect(history.propertiesWithHistory!.firstname!.map((h) => h.value)).toEqual(['Returned', 'Back']);
    const modified = await client.crm.contacts.basicApi.getById(created.id, undefined, ['lastmodifieddate']);
    expect(modified.propertiesWithHistory!.lastmodifieddate![0]!.value).toBe(body.updatedAt);
    // A live record restored again is answered as it is.
    expect((await restore('contact', created.id)).json()).toMatchObject({ id: created.id, archived: false });
    // It is searchable again.
    const found = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ' as never, value: 'back@example.com' }] }],
    });
    expect(found.results.map((x) => x.id)).toEqual([created.id]);
  });

  it('refused when another live contact holds its e-mail now (HubSpot’s 409), allowed once it is free', async () => {
    const first = await client.crm.contacts.basicApi.create({ properties: { email: 'taken@example.com' } });
    await client.crm.contacts.basicApi.archive(first.id);
    const second = await client.crm.contacts.basicApi.create({ properties: { email: 'taken@example.com' } });
    const refused = await restore('contacts', first.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      category: 'CONFLICT',
      message: `Contact already exists. Existing ID: ${second.id}`,
    });
    // Still archived: 404 without archived=true.
    expect((await failure(client.crm.contacts.basicApi.getById(first.id))).code).toBe(404);
    await client.crm.contacts.basicApi.archive(second.id);
    expect((await restore('contacts', first.id)).statusCode).toBe(200);
    // Now the second cannot come back: the first holds the e-mail.
    expect((await restore('contacts', second.id)).json()).toMatchObject({
      message: `Contact already exists. Existing ID: ${first.id}`,
    });
  });

  it('the 90 days count on the install’s clock named by appId (else the service’s): refused after them', async () => {
    const f = await oauthFixture(t, {
      requiredScopes: ['crm.objects.companies.read', 'crm.objects.companies.write'],
      optionalScopes: [],
    });
    await installAndExchange(t, f);
    const company = (
      await t.inject({
        method: 'POST',
        url: '/crm/v3/objects/companies',
        headers: { authorization: `Bearer ${mintRecordsToken(t, f.hubId)}` },
        payload: { properties: { name: 'Old Co' } },
      })
    ).json() as { id: string };
    const del = await t.inject({
      method: 'DELETE',
      url: `/crm/v3/objects/companies/${company.id}`,
      headers: { authorization: `Bearer ${mintRecordsToken(t, f.hubId)}` },
    });
    expect(del.statusCode).toBe(204);
    const advanced = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/clock`, {
      advanceSeconds: 90 * DAY_S + 1,
    });
    expect(advanced.statusCode).toBe(200);
    const late = await t.admin('POST', restorePath('companies', company.id, f.hubId), { appId: f.appId });
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({
      category: 'VALIDATION_ERROR',
      subCategory: 'RESTORE_WINDOW_PASSED',
      message: 'The record was archived more than 90 days ago and can no longer be restored.',
      context: { windowDays: ['90'] },
    });
    // On the service's own time it is still within them.
    expect((await t.admin('POST', restorePath('companies', company.id, f.hubId), {})).statusCode).toBe(200);
  });

  it('a restored record’s associations show again; it counts against the record ceiling', async () => {
    const ada = await client.crm.contacts.basicApi.create({ properties: { email: 'assoc-restore@example.com' } });
    const acme = await client.crm.companies.basicApi.create({ properties: { name: 'Acme Restore' } });
    await client.crm.associations.v4.basicApi.createDefault('contacts', ada.id, 'companies', acme.id);
    await client.crm.companies.basicApi.archive(acme.id);
    expect((await client.crm.associations.v4.basicApi.getPage('contacts', ada.id, 'companies')).results).toEqual([]);
    expect((await restore('companies', acme.id)).statusCode).toBe(200);
    const page = await client.crm.associations.v4.basicApi.getPage('contacts', ada.id, 'companies');
    expect(page.results.map((r) => String(r.toObjectId))).toEqual([acme.id]);

    const limited = (await createAccount(t)).hubId;
    const limitedToken = mintRecordsToken(t, limited);
    const call = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
      t.inject({ method, url, headers: { authorization: `Bearer ${limitedToken}` }, ...(payload ? { payload } : {}) });
    const one = (await call('POST', '/crm/v3/objects/deals', { properties: { dealname: 'One' } })).json() as {
      id: string;
    };
    expect((await call('DELETE', `/crm/v3/objects/deals/${one.id}`)).statusCode).toBe(204);
    expect((await call('POST', '/crm/v3/objects/deals', { properties: { dealname: 'Two' } })).statusCode).toBe(201);
    expect((await t.admin('PUT', `/admin/v1/accounts/${limited}/limits`, { records: 1 })).statusCode).toBe(200);
    const over = await t.admin('POST', restorePath('deals', one.id, limited), {});
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ subCategory: 'LIMITS.RECORDS_LIMIT_EXCEEDED' });
  });

  it('GDPR delete of a restored record leaves only the purge: the restore’s values go with the rest', async () => {
    const contact = await client.crm.contacts.basicApi.create({
      properties: { email: 'gdpr-restored@example.com', firstname: 'Secret' },
    });
    await client.crm.contacts.basicApi.archive(contact.id);
    expect((await restore('contacts', contact.id)).statusCode).toBe(200);
    await client.crm.contacts.basicApi.purge({ objectId: contact.id });
    const store = t.app.get<EventStore>(EVENT_STORE);
    const left = await store.readStream(recordStream(hubId, '0-1', Number(contact.id)));
    expect(left.map((e) => e.type)).toEqual(['crm.RecordPurged']);
    expect(JSON.stringify(left)).not.toContain('Secret');
    expect((await restore('contacts', contact.id)).statusCode).toBe(404);
  });

  it('answers bad input with HubSpot’s error, never a 5xx', async () => {
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: 'bad-input@example.com' } });
    await client.crm.contacts.basicApi.archive(contact.id);
    const cases: Array<[string, unknown, number]> = [
      [restorePath('contacts', contact.id, 0), {}, 400],
      [`/admin/v1/accounts/x/crm/objects/contacts/${contact.id}/restore`, {}, 400],
      [restorePath('nosuchtype', contact.id), {}, 400],
      [restorePath('contacts', '99999999'), {}, 404],
      [restorePath('contacts', 'abc'), {}, 404],
      [restorePath('contacts', contact.id), { appId: 'x' }, 400],
      [restorePath('contacts', contact.id), { appId: 0 }, 400],
      [restorePath('contacts', contact.id), { userId: -1 }, 400],
      [restorePath('contacts', contact.id), { userId: 1.5 }, 400],
      [restorePath('contacts', contact.id), [1, 2], 400],
      // The body is a JSON object ({} for none of its fields).
      [restorePath('contacts', contact.id), undefined, 400],
      // Another account's record: not found in this one.
      [restorePath('contacts', contact.id, (await createAccount(t)).hubId), {}, 404],
    ];
    for (const [url, payload, status] of cases) {
      const r = await t.admin('POST', url, payload);
      expect({ url, payload, status: r.statusCode }).toEqual({ url, payload, status });
      expect(r.json()).toMatchObject({ status: 'error', category: expect.any(String), message: expect.any(String) });
    }
    const malformed = await t.inject({
      method: 'POST',
      url: restorePath('contacts', contact.id),
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload: '{"appId":',
    });
    expect(malformed.statusCode).toBe(400);
    const anonymous = await t.inject({ method: 'POST', url: restorePath('contacts', contact.id) });
    expect(anonymous.statusCode).toBe(401);
    // A bearer token is no admin key.
    const bearer = await t.inject({
      method: 'POST',
      url: restorePath('contacts', contact.id),
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bearer.statusCode).toBe(401);
    // Nothing above restored it.
    expect((await failure(client.crm.contacts.basicApi.getById(contact.id))).code).toBe(404);
  });
});

describe('merge moves the merged record’s associations to the primary', () => {
  it('deduplicated, read through v4 and the v3 objects API; the primary keeps its own Primary company', async () => {
    const primary = await client.crm.contacts.basicApi.create({ properties: { email: 'keep@example.com' } });
    const other = await client.crm.contacts.basicApi.create({ properties: { email: 'gone@example.com' } });
    const [shared, own, moved, deal] = await Promise.all([
      client.crm.companies.basicApi.create({ properties: { name: 'Shared' } }),
      client.crm.companies.basicApi.create({ properties: { name: 'Own primary' } }),
      client.crm.companies.basicApi.create({ properties: { name: 'Moved primary' } }),
      client.crm.deals.basicApi.create({ properties: { dealname: 'Moved deal' } }),
    ]);
    const v4 = client.crm.associations.v4.basicApi;
    const primaryType = [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: 1 }];
    await v4.createDefault('contacts', primary.id, 'companies', shared.id);
    await v4.create('contacts', primary.id, 'companies', own.id, primaryType);
    await v4.createDefault('contacts', other.id, 'companies', shared.id);
    await v4.create('contacts', other.id, 'companies', moved.id, primaryType);
    await v4.createDefault('contacts', other.id, 'deals', deal.id);

    await client.crm.contacts.basicApi.merge({ primaryObjectId: primary.id, objectIdToMerge: other.id });

    const companies = await v4.getPage('contacts', primary.id, 'companies');
    const byId = Object.fromEntries(
      companies.results.map((r) => [String(r.toObjectId), r.associationTypes.map((x) => x.typeId).sort()]),
    );
    // Shared once; its own Primary stays; the merged record's Primary company comes unlabeled.
    expect(byId).toEqual({ [shared.id]: [279], [own.id]: [1, 279], [moved.id]: [279] });
    expect((await v4.getPage('contacts', primary.id, 'deals')).results.map((r) => String(r.toObjectId))).toEqual([
      deal.id,
    ]);
    // From the other side too: the deal now names the primary.
    expect((await v4.getPage('deals', deal.id, 'contacts')).results.map((r) => String(r.toObjectId))).toEqual([
      primary.id,
    ]);
    // The v3 objects API's associations of the primary.
    const read = await get(`/crm/v3/objects/contacts/${primary.id}?associations=companies,deals`);
    const associations = (read.json() as { associations: Record<string, { results: { id: string }[] }> }).associations;
    expect(new Set(associations.companies!.results.map((r) => r.id))).toEqual(new Set([shared.id, own.id, moved.id]));
    expect(associations.deals!.results.map((r) => r.id)).toEqual([deal.id]);
  });

  it('companies: their contacts and tickets move; a contact whose Primary company was merged away has the primary', async () => {
    const a = await client.crm.companies.basicApi.create({ properties: { name: 'A stays' } });
    const b = await client.crm.companies.basicApi.create({ properties: { name: 'B merged' } });
    const [c1, c2] = await Promise.all([
      client.crm.contacts.basicApi.create({ properties: { email: 'c1-merge@example.com' } }),
      client.crm.contacts.basicApi.create({ properties: { email: 'c2-merge@example.com' } }),
    ]);
    const ticket = await client.crm.tickets.basicApi.create({
      properties: { subject: 'Moved ticket', hs_pipeline: '0', hs_pipeline_stage: '1' },
    });
    const v4 = client.crm.associations.v4.basicApi;
    await v4.createDefault('companies', a.id, 'contacts', c1.id);
    await v4.createDefault('companies', b.id, 'contacts', c1.id);
    await v4.create('contacts', c2.id, 'companies', b.id, [
      { associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: 1 },
    ]);
    await v4.createDefault('companies', b.id, 'tickets', ticket.id);
    await client.crm.companies.basicApi.merge({ primaryObjectId: a.id, objectIdToMerge: b.id });
    const contacts = await v4.getPage('companies', a.id, 'contacts');
    expect(contacts.results.map((r) => String(r.toObjectId)).sort()).toEqual([c1.id, c2.id].sort());
    const c2Companies = await v4.getPage('contacts', c2.id, 'companies');
    expect(
      c2Companies.results.map((r) => [String(r.toObjectId), r.associationTypes.map((x) => x.typeId).sort()]),
    ).toEqual([[a.id, [1, 279]]]);
    expect((await v4.getPage('companies', a.id, 'tickets')).results.map((r) => String(r.toObjectId))).toEqual([
      ticket.id,
    ]);
  });
});
