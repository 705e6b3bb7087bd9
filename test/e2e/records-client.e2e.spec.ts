import { Client } from '@hubspot/api-client';
import { installAndExchange, oauthFixture } from '../support/oauth-fixtures';
import { operationProblems } from '../support/wire-schemas';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * @hubspot/api-client v14's crm.contacts, crm.companies, crm.deals, crm.tickets and crm.objects
 * against the service on 127.0.0.1 with only basePath changed: what an app does right after its
 * OAuth flow (getPage), then create, read, update, archive, batches, and HubSpot's errors.
 */
let t: TestApp;
let client: Client;
let hubId: number;

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  client = new Client({ accessToken: mintRecordsToken(t, hubId), basePath: t.url });
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

describe('HubSpot’s OAuth quickstart path', () => {
  it('install, code exchange, then crm.contacts.basicApi.getPage() with the access token', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    const app = new Client({ accessToken: tokens.access_token, basePath: t.url });
    const created = await app.crm.contacts.basicApi.getPage(1);
    expect(created.results).toEqual([]);
    // The install's scopes (oauth, crm.objects.contacts.read) do not cover writes: HubSpot's 403.
    const refused = await failure(app.crm.contacts.basicApi.create({ properties: { email: 'q@example.com' } }));
    expect(refused).toMatchObject({ code: 403, body: { category: 'MISSING_SCOPES' } });
  });
});

describe('@hubspot/api-client v14 crm.contacts', () => {
  it('getPage on an empty account answers an empty page (the OAuth quickstart’s first call)', async () => {
    const page = await client.crm.contacts.basicApi.getPage();
    expect(page.results).toEqual([]);
    expect(page.paging).toBeUndefined();
  });

  it('create, getById, update, archive; default properties present', async () => {
    const created = await client.crm.contacts.basicApi.create({
      properties: { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace' },
      associations: [],
    });
    expect(created.id).toMatch(/^\d+$/);
    expect(created.properties).toMatchObject({
      email: 'ada@example.com',
      firstname: 'Ada',
      hs_object_id: created.id,
      createdate: '2026-11-22T09:00:00.000Z',
      lastmodifieddate: '2026-11-22T09:00:00.000Z',
    });
    expect(created.archived).toBe(false);

    const read = await client.crm.contacts.basicApi.getById(created.id, ['email', 'phone']);
    expect(read.properties).toEqual({ email: 'ada@example.com' });

    t.clock.advance(60_000);
    const updated = await client.crm.contacts.basicApi.update(created.id, { properties: { phone: '+44 20 1234' } });
    expect(updated.properties).toMatchObject({ phone: '+44 20 1234', lastmodifieddate: '2026-11-22T09:01:00.000Z' });
    expect(updated.updatedAt).toEqual(new Date('2026-11-22T09:01:00.000Z'));

    const withHistory = await client.crm.contacts.basicApi.getById(created.id, undefined, ['phone', 'firstname']);
    expect(withHistory.propertiesWithHistory).toEqual({
      phone: [
        {
          value: '+44 20 1234',
          timestamp: new Date('2026-11-22T09:01:00.000Z'),
          sourceType: 'INTEGRATION',
          sourceId: '42',
          updatedByUserId: 7,
        },
      ],
      firstname: [
        {
          value: 'Ada',
          timestamp: new Date('2026-11-22T09:00:00.000Z'),
          sourceType: 'INTEGRATION',
          sourceId: '42',
          updatedByUserId: 7,
        },
      ],
    });

    await client.crm.contacts.basicApi.archive(created.id);
    expect(await failure(client.crm.contacts.basicApi.getById(created.id))).toMatchObject({
      code: 404,
      body: { category: 'OBJECT_NOT_FOUND' },
    });
    const archived = await client.crm.contacts.basicApi.getById(created.id, undefined, undefined, undefined, true);
    expect(archived.archived).toBe(true);
  });

  it('a second contact with the same e-mail is 409 with the existing id', async () => {
    const first = await client.crm.contacts.basicApi.create({ properties: { email: 'Grace@Example.com' } });
    const refused = await failure(
      client.crm.contacts.basicApi.create({ properties: { email: 'grace@example.com', firstname: 'G' } }),
    );
    expect(refused.code).toBe(409);
    expect(refused.body).toMatchObject({
      category: 'CONFLICT',
      message: `Contact already exists. Existing ID: ${first.id}`,
    });
    const byEmail = await client.crm.contacts.basicApi.getById(
      'grace@example.com',
      undefined,
      undefined,
      undefined,
      false,
      'email',
    );
    expect(byEmail.id).toBe(first.id);
  });

  it('of concurrent creates with one e-mail exactly one is stored; the others are 409 naming it', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        client.crm.contacts.basicApi.create({ properties: { email: 'race@example.com', firstname: `R${i}` } }),
      ),
    );
    const stored = outcomes.filter((o) => o.status === 'fulfilled');
    expect(stored).toHaveLength(1);
    const id = (stored[0] as PromiseFulfilledResult<{ id: string }>).value.id;
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      const e = (o as PromiseRejectedResult).reason as { code: number; body: unknown };
      const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as { message: string };
      expect({ code: e.code, message: body.message }).toEqual({
        code: 409,
        message: `Contact already exists. Existing ID: ${id}`,
      });
    }
  });

  it('values are checked against the account’s definitions', async () => {
    const refused = await failure(
      client.crm.contacts.basicApi.create({ properties: { nosuch: 'x', hs_object_id: '5' } }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body.category).toBe('VALIDATION_ERROR');
    expect(refused.body.message).toMatch(/^Property values were not valid: \[/);
    expect(refused.body.errors).toEqual([
      { message: 'Property "nosuch" does not exist', in: 'nosuch', code: 'PROPERTY_DOESNT_EXIST' },
      { message: expect.stringContaining('read only'), in: 'hs_object_id', code: 'READ_ONLY_VALUE' },
    ]);
  });

  it('getAll pages through 250 contacts (paging.next.after)', async () => {
    for (const [from, count] of [
      [0, 100],
      [100, 100],
      [200, 50],
    ]) {
      await client.crm.contacts.batchApi.create({
        inputs: Array.from({ length: count! }, (_, i) => ({
          properties: { email: `bulk${from! + i}@example.com` },
          associations: [],
        })),
      });
    }
    const all = await client.crm.contacts.getAll(100);
    const bulk = all.filter((c) => c.properties.email?.startsWith('bulk'));
    expect(bulk.length).toBe(250);
    expect(new Set(bulk.map((c) => c.id)).size).toBe(250);
  });

  it('paging.next.link is absolute and works when followed verbatim', async () => {
    const r = await fetch(`${t.url}/crm/v3/objects/contacts?limit=2&properties=email`, {
      headers: { authorization: `Bearer ${mintRecordsToken(t, hubId)}` },
    });
    const page = (await r.json()) as { results: unknown[]; paging: { next: { after: string; link: string } } };
    expect(operationProblems('GET', '/crm/v3/objects/{objectType}', 200, page)).toEqual([]);
    expect(page.paging.next.link).toBe(
      `${t.url}/crm/v3/objects/contacts?limit=2&properties=email&after=${page.paging.next.after}`,
    );
    const next = await fetch(page.paging.next.link, {
      headers: { authorization: `Bearer ${mintRecordsToken(t, hubId)}` },
    });
    expect(next.status).toBe(200);
  });
});

describe('@hubspot/api-client v14: companies, deals, tickets, custom objects', () => {
  it('companies have no unique domain', async () => {
    const a = await client.crm.companies.basicApi.create({ properties: { name: 'A', domain: 'a.example' } });
    const b = await client.crm.companies.basicApi.create({ properties: { name: 'B', domain: 'a.example' } });
    expect(a.id).not.toBe(b.id);
    expect(b.properties).toMatchObject({ domain: 'a.example', hs_lastmodifieddate: expect.any(String) });
  });

  it('deals: number values checked', async () => {
    const ok = await client.crm.deals.basicApi.create({
      properties: { dealname: 'D', amount: '100.5', pipeline: 'default' },
    });
    expect(ok.properties).toMatchObject({ amount: '100.5', dealname: 'D', pipeline: 'default' });
    const refused = await failure(client.crm.deals.basicApi.create({ properties: { amount: 'lots' } }));
    expect(refused.body.errors).toEqual([
      { message: '"lots" was not a valid number.', in: 'amount', code: 'INVALID_FLOAT' },
    ]);
  });

  it('tickets with the tickets scope', async () => {
    const ticket = await client.crm.tickets.basicApi.create({ properties: { subject: 'Help', hs_pipeline: '0' } });
    const page = await client.crm.tickets.basicApi.getPage();
    expect(page.results.map((r) => r.id)).toContain(ticket.id);
  });

  it('custom objects by fully qualified name, name and id', async () => {
    const schema = await client.crm.schemas.coreApi.create({
      name: 'machine',
      labels: { singular: 'Machine', plural: 'Machines' },
      primaryDisplayProperty: 'model',
      requiredProperties: ['model'],
      properties: [{ name: 'model', label: 'Model', type: 'string' as never, fieldType: 'text' as never }],
      associatedObjects: [],
    } as never);
    const made = await client.crm.objects.basicApi.create(schema.objectTypeId!, { properties: { model: 'X1' } });
    expect(made.properties).toMatchObject({ hs_object_id: made.id, hs_createdate: expect.any(String) });
    const byName = await client.crm.objects.basicApi.getById(`p${hubId}_machine`, made.id, ['model']);
    expect(byName.properties).toEqual({ model: 'X1' });
    const byPlainName = await client.crm.objects.basicApi.getPage('machine', 10, undefined, ['model']);
    expect(byPlainName.results.map((r) => r.properties.model)).toEqual(['X1']);
  });
});

describe('@hubspot/api-client v14 batchApi of every type', () => {
  const apis = () =>
    [
      ['companies', client.crm.companies, { name: 'Batch Co' }, { industry: 'INTERNET' }],
      ['deals', client.crm.deals, { dealname: 'Batch deal' }, { amount: '10' }],
      ['tickets', client.crm.tickets, { subject: 'Batch ticket' }, { content: 'More' }],
    ] as const;

  it.each(['companies', 'deals', 'tickets'])('%s: batch create, read, update, archive', async (name) => {
    const [, api, created, changed] = apis().find(([n]) => n === name)!;
    const made = await api.batchApi.create({
      inputs: [
        { properties: { ...created }, associations: [] },
        { properties: { ...created }, associations: [] },
      ],
    });
    const ids = made.results.map((r) => r.id);
    expect(ids).toHaveLength(2);
    const read = await api.batchApi.read({
      inputs: ids.map((id) => ({ id })),
      properties: Object.keys(created),
      propertiesWithHistory: [],
    });
    expect(read.results.map((r) => r.properties)).toEqual([created, created]);
    const updated = await api.batchApi.update({ inputs: ids.map((id) => ({ id, properties: { ...changed } })) });
    expect(updated.results.every((r) => Object.entries(changed).every(([k, v]) => r.properties[k] === v))).toBe(true);
    await api.batchApi.archive({ inputs: ids.map((id) => ({ id })) });
    const page = await api.basicApi.getPage(100, undefined, undefined, undefined, undefined, true);
    expect(page.results.map((r) => r.id)).toEqual(expect.arrayContaining(ids));
  });

  it('contacts: batch upsert by email reports new', async () => {
    const first = await client.crm.contacts.batchApi.upsert({
      inputs: [{ id: 'upsert@example.com', idProperty: 'email', properties: { firstname: 'U' } }],
    });
    expect(first.results.map((r) => [r.properties.firstname, r._new])).toEqual([['U', true]]);
    const again = await client.crm.contacts.batchApi.upsert({
      inputs: [{ id: 'UPSERT@example.com', idProperty: 'email', properties: { firstname: 'V' } }],
    });
    expect(again.results.map((r) => [r.id, r.properties.firstname, r._new])).toEqual([
      [first.results[0]!.id, 'V', false],
    ]);
  });

  it('crm.objects with a custom type: batch create, read, update, archive', async () => {
    const made = await client.crm.objects.batchApi.create('machine', {
      inputs: [
        { properties: { model: 'B1' }, associations: [] },
        { properties: { model: 'B2' }, associations: [] },
      ],
    });
    const ids = made.results.map((r) => r.id);
    const read = await client.crm.objects.batchApi.read('machine', {
      inputs: ids.map((id) => ({ id })),
      properties: ['model'],
      propertiesWithHistory: ['model'],
    });
    expect(read.results.map((r) => r.properties.model).sort()).toEqual(['B1', 'B2']);
    expect(read.results[0]!.propertiesWithHistory!.model![0]!.sourceType).toBe('INTEGRATION');
    await client.crm.objects.batchApi.update('machine', { inputs: [{ id: ids[0]!, properties: { model: 'B1x' } }] });
    await client.crm.objects.batchApi.archive('machine', { inputs: ids.map((id) => ({ id })) });
    expect((await failure(client.crm.objects.basicApi.getById('machine', ids[0]!))).code).toBe(404);
  });
});
