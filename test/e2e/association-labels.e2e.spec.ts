import { Client } from '@hubspot/api-client';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * The account's association labels through @hubspot/api-client v14
 * (`crm.associations.v4.schema.definitionsApi.create/getAll/update/archive`, only basePath changed):
 * USER_DEFINED types, one per direction, paired labels; kept as the CRM schema module's association
 * definitions (events on the account's limits stream); usable in associations; bad input.
 */
let t: TestApp;
let client: Client;
let hubId: number;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t, { tier: 'professional' })).hubId;
  token = mintRecordsToken(t, hubId);
  client = new Client({ accessToken: token, basePath: t.url });
});

afterAll(async () => {
  await t?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function failure(p: Promise<unknown>): Promise<{ code: number; body: Record<string, any> }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

async function call(method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await t.inject({ method, url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.body === '' ? undefined : (r.json() as Record<string, unknown>) };
}

const definitions = () => client.crm.associations.v4.schema.definitionsApi;

describe('crm.associations.v4.schema.definitionsApi', () => {
  it('create (paired), getAll, use in an association, update, remove; recorded as the schema module’s events', async () => {
    const created = await definitions().create('contacts', 'companies', {
      name: 'employee_employer',
      label: 'Employee',
      inverseLabel: 'Employer',
    });
    expect(created.results).toHaveLength(2);
    const [forward, backward] = created.results;
    expect(forward).toMatchObject({ category: 'USER_DEFINED', label: 'Employee' });
    expect(backward).toMatchObject({ category: 'USER_DEFINED', label: 'Employer' });
    expect(backward!.typeId).not.toBe(forward!.typeId);
    expect(
      operationProblems('POST', '/crm/v4/associations/{fromObjectType}/{toObjectType}/labels', 200, created),
    ).toEqual([]);

    // Listed by getAll of both directions, beside HubSpot's types.
    const fromContacts = (await definitions().getAll('contacts', 'companies')).results;
    expect(fromContacts).toContainEqual({ category: 'USER_DEFINED', typeId: forward!.typeId, label: 'Employee' });
    expect(fromContacts).toContainEqual({ category: 'HUBSPOT_DEFINED', typeId: 279 });
    const fromCompanies = (await definitions().getAll('companies', 'contacts')).results;
    expect(fromCompanies).toContainEqual({ category: 'USER_DEFINED', typeId: backward!.typeId, label: 'Employer' });

    // Usable in associations: the label brings the pair's unlabeled type; seen from the other side as its inverse.
    const ada = (await client.crm.contacts.basicApi.create({ properties: { email: 'ada@x.com' }, associations: [] }))
      .id;
    const acme = (await client.crm.companies.basicApi.create({ properties: { name: 'Acme' }, associations: [] })).id;
    const spec = { associationCategory: 'USER_DEFINED', associationTypeId: forward!.typeId } as never;
    const made = await client.crm.associations.v4.basicApi.create('contacts', ada, 'companies', acme, [spec]);
    expect(made.labels).toEqual(['Employee']);
    const seen = await client.crm.associations.v4.basicApi.getPage('companies', acme, 'contacts');
    expect(seen.results[0]!.associationTypes).toContainEqual({
      category: 'USER_DEFINED',
      typeId: backward!.typeId,
      label: 'Employer',
    });

    // Update (from either side) and archive.
    await definitions().update('contacts', 'companies', {
      associationTypeId: forward!.typeId,
      label: 'Staff',
    } as never);
    await definitions().update('companies', 'contacts', {
      associationTypeId: backward!.typeId,
      label: 'Workplace',
    } as never);
    const renamed = (await definitions().getAll('contacts', 'companies')).results;
    expect(renamed).toContainEqual({ category: 'USER_DEFINED', typeId: forward!.typeId, label: 'Staff' });
    expect((await definitions().getAll('companies', 'contacts')).results).toContainEqual({
      category: 'USER_DEFINED',
      typeId: backward!.typeId,
      label: 'Workplace',
    });
    await definitions().remove('contacts', 'companies', forward!.typeId);
    const after = (await definitions().getAll('contacts', 'companies')).results;
    expect(after.some((x) => x.category === 'USER_DEFINED')).toBe(false);
    // The association keeps its unlabeled type; the archived label's type no longer shows.
    const kept = await client.crm.associations.v4.basicApi.getPage('contacts', ada, 'companies');
    expect(kept.results[0]!.associationTypes).toEqual([{ category: 'HUBSPOT_DEFINED', typeId: 279 }]);

    const events = (await t.admin('GET', '/admin/v1/events?limit=1000')).json() as {
      results: Array<{ type: string; streamId: string }>;
    };
    const kinds = events.results.filter((e) => e.streamId === `limits.account-${hubId}`).map((e) => e.type);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'limits.AssociationDefinitionCreated',
        'limits.AssociationDefinitionUpdated',
        'limits.AssociationDefinitionDeleted',
      ]),
    );
  });

  it('a label without inverseLabel names both directions the same; a record create takes it', async () => {
    const created = await definitions().create('deals', 'contacts', {
      name: 'decision_maker',
      label: 'Decision maker',
    });
    expect(created.results.map((r) => r.label)).toEqual(['Decision maker', 'Decision maker']);
    const bob = (await client.crm.contacts.basicApi.create({ properties: { email: 'bob@x.com' }, associations: [] }))
      .id;
    const typeId = created.results[0]!.typeId;
    const deal = await client.crm.deals.basicApi.create({
      properties: { dealname: 'Big' },
      associations: [{ to: { id: bob }, types: [{ associationCategory: 'USER_DEFINED', associationTypeId: typeId }] }],
    } as never);
    const page = await client.crm.associations.v4.basicApi.getPage('deals', deal.id, 'contacts');
    expect(page.results[0]!.associationTypes).toContainEqual({
      category: 'USER_DEFINED',
      typeId,
      label: 'Decision maker',
    });
  });

  it('bad input: no body, blank or missing fields, a name in use, unknown type ids and object types', async () => {
    const base = '/crm/v4/associations/contacts/companies/labels';
    expect(await call('POST', base)).toMatchObject({
      status: 400,
      body: { message: 'Invalid JSON input: a request body was expected, but none found' },
    });
    const blank = await call('POST', base, { name: ' ', label: 5 });
    expect(blank.status).toBe(400);
    expect((blank.body!.errors as Array<{ in: string }>).map((e) => e.in).sort()).toEqual(['label', 'name']);
    await definitions().create('contacts', 'companies', { name: 'taken', label: 'Taken' });
    const dup = await failure(definitions().create('contacts', 'companies', { name: 'TAKEN', label: 'Again' }));
    expect(dup).toMatchObject({ code: 409, body: { category: 'CONFLICT' } });
    const noType = await failure(
      definitions().update('contacts', 'companies', { associationTypeId: 999999, label: 'X' } as never),
    );
    expect(noType).toMatchObject({ code: 404, body: { category: 'OBJECT_NOT_FOUND' } });
    const badUpdate = await call('PUT', base, { associationTypeId: 'x', label: '' });
    expect((badUpdate.body!.errors as Array<{ in: string }>).map((e) => e.in).sort()).toEqual([
      'associationTypeId',
      'label',
    ]);
    expect((await call('DELETE', `${base}/999999`)).status).toBe(404);
    expect((await call('DELETE', `${base}/abc`)).status).toBe(400);
    expect(
      (await call('POST', '/crm/v4/associations/widgets/companies/labels', { name: 'w', label: 'W' })).status,
    ).toBe(400);
    // A HubSpot-defined type is not the account's label.
    expect((await call('DELETE', `${base}/279`)).status).toBe(404);
    const narrow = mintRecordsToken(t, hubId, ['crm.objects.contacts.read']);
    const r = await t.inject({
      method: 'POST',
      url: base,
      headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'n', label: 'N' }),
    });
    expect(r.statusCode).toBe(403);
  });
});
