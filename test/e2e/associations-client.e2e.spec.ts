import { Client } from '@hubspot/api-client';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * Associations v4 through @hubspot/api-client v14 (crm.associations.v4.basicApi, batchApi,
 * schema.definitionsApi) with only basePath changed; the dated paths; bad input with HubSpot's
 * Error body; records read with `associations=`.
 */
let t: TestApp;
let client: Client;
let hubId: number;
let token: string;
let otherToken: string;

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t, { tier: 'professional' })).hubId;
  token = mintRecordsToken(t, hubId);
  otherToken = mintRecordsToken(t, (await createAccount(t)).hubId);
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

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  options: { raw?: string; token?: string } = {},
) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? token}` };
  let payload: string | undefined;
  if (options.raw !== undefined || body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = options.raw ?? JSON.stringify(body);
  }
  const r = await t.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  return { status: r.statusCode, body: r.body === '' ? undefined : (r.json() as Record<string, any>) }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const spec = (associationTypeId: number, associationCategory = 'HUBSPOT_DEFINED') =>
  ({ associationCategory, associationTypeId }) as never;

async function contact(email: string): Promise<string> {
  return (await client.crm.contacts.basicApi.create({ properties: { email }, associations: [] })).id;
}
async function company(name: string): Promise<string> {
  return (await client.crm.companies.basicApi.create({ properties: { name }, associations: [] })).id;
}

describe('crm.associations.v4.basicApi', () => {
  it('create with Primary (the unlabeled type comes with it), getPage, createDefault, archive', async () => {
    const ada = await contact('ada@example.com');
    const acme = await company('Acme');
    const globex = await company('Globex');

    const created = await client.crm.associations.v4.basicApi.create('contacts', ada, 'companies', acme, [spec(1)]);
    expect(created).toMatchObject({
      fromObjectTypeId: '0-1',
      fromObjectId: ada,
      toObjectTypeId: '0-2',
      toObjectId: acme,
      labels: ['Primary'],
    });

    const page = await client.crm.associations.v4.basicApi.getPage('contacts', ada, 'companies');
    expect(page.results).toEqual([
      {
        toObjectId: acme,
        associationTypes: [
          { category: 'HUBSPOT_DEFINED', typeId: 1, label: 'Primary' },
          { category: 'HUBSPOT_DEFINED', typeId: 279 },
        ],
      },
    ]);
    // The other direction holds the inverse types.
    const back = await call('GET', `/crm/v4/objects/companies/${acme}/associations/contacts`);
    expect(back.body!.results[0].associationTypes.map((x: { typeId: number }) => x.typeId)).toEqual([2, 280]);
    expect(
      operationProblems('GET', '/crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}', 200, back.body),
    ).toEqual([]);

    const byDefault = await client.crm.associations.v4.basicApi.createDefault('contact', ada, 'company', globex);
    expect(byDefault.results).toHaveLength(1);
    expect(byDefault.results[0]).toMatchObject({
      _from: { id: ada },
      to: { id: globex },
      associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 },
    });

    // A Primary moves: Globex becomes primary, Acme keeps the unlabeled association.
    await client.crm.associations.v4.basicApi.create('0-1', ada, '0-2', globex, [spec(1)]);
    const after = await client.crm.associations.v4.basicApi.getPage('contacts', ada, 'companies', undefined, 1);
    expect(after.results).toHaveLength(1);
    expect(after.paging?.next?.after).toBe(acme);
    const all = await call('GET', `/crm/v4/objects/contacts/${ada}/associations/companies`);
    expect(
      all.body!.results.map((r: { associationTypes: Array<{ typeId: number }> }) =>
        r.associationTypes.map((x) => x.typeId),
      ),
    ).toEqual([[279], [1, 279]]);

    await client.crm.associations.v4.basicApi.archive('contacts', ada, 'companies', acme);
    const left = await client.crm.associations.v4.basicApi.getPage('contacts', ada, 'companies');
    expect(left.results.map((r) => r.toObjectId)).toEqual([globex]);
  });

  it('HubSpot’s type ids per pair: deal↔contact 3/4, deal↔company 341/342, ticket↔contact 16/15', async () => {
    const c = await contact('grace@example.com');
    const co = await company('Initech');
    const deal = (await client.crm.deals.basicApi.create({ properties: { dealname: 'D' }, associations: [] })).id;
    const ticket = (await client.crm.tickets.basicApi.create({ properties: { subject: 'T' }, associations: [] })).id;
    await client.crm.associations.v4.basicApi.createDefault('deals', deal, 'contacts', c);
    await client.crm.associations.v4.basicApi.createDefault('deals', deal, 'companies', co);
    await client.crm.associations.v4.basicApi.createDefault('tickets', ticket, 'contacts', c);
    const typeIds = async (from: string, id: string, to: string) =>
      (await client.crm.associations.v4.basicApi.getPage(from, id, to)).results.flatMap((r) =>
        r.associationTypes.map((x) => x.typeId),
      );
    expect(await typeIds('contacts', c, 'deals')).toEqual([4]);
    expect(await typeIds('deals', deal, 'contacts')).toEqual([3]);
    expect(await typeIds('deals', deal, 'companies')).toEqual([341]);
    expect(await typeIds('companies', co, 'deals')).toEqual([342]);
    expect(await typeIds('tickets', ticket, 'contacts')).toEqual([16]);
    expect(await typeIds('contacts', c, 'tickets')).toEqual([15]);
  });

  it('records read with associations= include them (HubSpot’s v3 type names)', async () => {
    const c = await contact('linus@example.com');
    const co = await company('Hooli');
    await client.crm.associations.v4.basicApi.create('contacts', c, 'companies', co, [spec(1)]);
    const read = await client.crm.contacts.basicApi.getById(c, undefined, undefined, ['companies']);
    expect(read.associations?.companies?.results).toEqual([
      { id: co, type: 'contact_to_company' },
      { id: co, type: 'contact_to_company_unlabeled' },
    ]);
    const page = await call('GET', `/crm/v3/objects/contacts?associations=companies&limit=100`);
    const row = page.body!.results.find((r: { id: string }) => r.id === c);
    expect(row.associations.companies.results).toHaveLength(2);
    const none = await call('GET', `/crm/v3/objects/contacts/${c}?associations=deals`);
    expect(none.body!.associations).toBeUndefined();
  });
});

describe('crm.associations.v4.batchApi', () => {
  it('create, getPage (read), createDefault, archiveLabels, archive', async () => {
    const [a, b] = [await contact('b1@example.com'), await contact('b2@example.com')];
    const co = await company('Batch Co');
    const created = await client.crm.associations.v4.batchApi.create('contacts', 'companies', {
      inputs: [
        { _from: { id: a }, to: { id: co }, types: [spec(1)] },
        { _from: { id: b }, to: { id: co }, types: [spec(279)] },
        { _from: { id: b }, to: { id: '999999' }, types: [spec(279)] },
      ],
    });
    expect(created.results.map((r) => r.labels)).toEqual([['Primary'], []]);
    expect('errors' in created && created.errors).toHaveLength(1);
    const raw = await call('POST', '/crm/v4/associations/contacts/companies/batch/create', {
      inputs: [{ from: { id: a }, to: { id: co }, types: [spec(279)] }],
    });
    expect(raw.status).toBe(201);
    expect(
      operationProblems('POST', '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/create', 201, raw.body),
    ).toEqual([]);

    const read = await client.crm.associations.v4.batchApi.getPage('contacts', 'companies', {
      inputs: [{ id: a }, { id: b }, { id: '424242' }],
    });
    expect(read.results.map((r) => [r._from.id, r.to.map((x) => x.toObjectId)])).toEqual([
      [a, [co]],
      [b, [co]],
    ]);
    expect('errors' in read && read.errors?.[0]?.context).toEqual({ ids: ['424242'], inputIndex: ['0'] });

    const byDefault = await client.crm.associations.v4.batchApi.createDefault('companies', 'contacts', {
      inputs: [{ _from: { id: co }, to: { id: a } }],
    });
    expect(byDefault.results[0]!.associationSpec.associationTypeId).toBe(280);

    await client.crm.associations.v4.batchApi.archiveLabels('contacts', 'companies', {
      inputs: [{ _from: { id: a }, to: { id: co }, types: [spec(1)] }],
    });
    expect(
      (await client.crm.associations.v4.basicApi.getPage('contacts', a, 'companies')).results[0]!.associationTypes.map(
        (x) => x.typeId,
      ),
    ).toEqual([279]);

    await client.crm.associations.v4.batchApi.archive('contacts', 'companies', {
      inputs: [
        { _from: { id: a }, to: [{ id: co }] },
        { _from: { id: b }, to: [{ id: co }] },
      ],
    });
    expect((await client.crm.associations.v4.basicApi.getPage('contacts', a, 'companies')).results).toEqual([]);
  });

  it('dated paths: 2026-03 and 2026-09 answer as their specs say', async () => {
    const a = await contact('dated@example.com');
    const co = await company('Dated Co');
    const put = await call('PUT', `/crm/objects/2026-09/contacts/${a}/associations/companies/${co}`, [spec(279)]);
    expect(put.status).toBe(201);
    expect(
      operationProblems(
        'PUT',
        '/crm/objects/2026-09/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}',
        201,
        put.body,
      ),
    ).toEqual([]);
    const list = await call('GET', `/crm/objects/2026-03/contacts/${a}/associations/companies`);
    expect(list.status).toBe(200);
    const create09 = await call('POST', '/crm/associations/2026-09/contacts/companies/batch/create', {
      inputs: [{ from: { id: a }, to: { id: '999999' }, types: [spec(279)] }],
    });
    expect(create09.status).toBe(200);
    expect(create09.body!.numErrors).toBe(1);
    const archive03 = await call('POST', '/crm/associations/2026-03/contacts/companies/batch/archive', {
      inputs: [{ from: { id: a }, to: [{ id: co }] }],
    });
    expect(archive03.status).toBe(200);
    expect(
      operationProblems(
        'POST',
        '/crm/associations/2026-03/{fromObjectType}/{toObjectType}/batch/archive',
        200,
        archive03.body,
      ),
    ).toEqual([]);
    const def = await call('PUT', `/crm/objects/2026-03/contacts/${a}/associations/default/companies/${co}`);
    expect(def.status).toBe(200);
  });
});

describe('crm.associations.v4.schema.definitionsApi', () => {
  it('getAll lists HubSpot’s types of the pair with their labels', async () => {
    const labels = await client.crm.associations.v4.schema.definitionsApi.getAll('contacts', 'companies');
    expect(labels.results).toEqual([
      { category: 'HUBSPOT_DEFINED', typeId: 279 },
      { category: 'HUBSPOT_DEFINED', typeId: 1, label: 'Primary' },
    ]);
  });
});

describe('bad input, with HubSpot’s Error body', () => {
  it('a PUT without a body: HubSpot’s text', async () => {
    const a = await contact('nobody@example.com');
    const co = await company('Nobody Co');
    const r = await call('PUT', `/crm/v4/objects/contacts/${a}/associations/companies/${co}`);
    expect(r).toMatchObject({
      status: 400,
      body: {
        category: 'VALIDATION_ERROR',
        message: 'Invalid JSON input: a request body was expected, but none found',
      },
    });
    const empty = await call('PUT', `/crm/v4/objects/contacts/${a}/associations/companies/${co}`, []);
    expect(empty.status).toBe(400);
  });

  it('unknown type ids, records and object types; bad ids and bodies; another account’s records', async () => {
    const a = await contact('bad@example.com');
    const co = await company('Bad Co');
    const wrongType = await failure(
      client.crm.associations.v4.basicApi.create('contacts', a, 'companies', co, [spec(3)]),
    );
    expect(wrongType).toMatchObject({ code: 400, body: { category: 'VALIDATION_ERROR' } });
    const notFound = await failure(
      client.crm.associations.v4.basicApi.create('contacts', a, 'companies', '999999', [spec(279)]),
    );
    expect(notFound).toMatchObject({ code: 404, body: { category: 'OBJECT_NOT_FOUND' } });
    const badType = await call('GET', `/crm/v4/objects/widgets/${a}/associations/companies`);
    expect(badType.status).toBe(400);
    const badId = await call('GET', `/crm/v4/objects/contacts/abc/associations/companies`);
    expect(badId).toMatchObject({ status: 400, body: { errors: [{ in: 'objectId' }] } });
    const badLimit = await call('GET', `/crm/v4/objects/contacts/${a}/associations/companies?limit=501`);
    expect(badLimit).toMatchObject({ status: 400, body: { errors: [{ in: 'limit' }] } });
    const badBody = await call('PUT', `/crm/v4/objects/contacts/${a}/associations/companies/${co}`, [
      { associationCategory: 'NOPE', associationTypeId: 'x' },
    ]);
    expect(badBody.body!.errors.map((e: { in: string }) => e.in)).toEqual([
      'body.0.associationCategory',
      'body.0.associationTypeId',
    ]);
    const malformed = await call('POST', '/crm/v4/associations/contacts/companies/batch/create', undefined, {
      raw: '{"inputs":',
    });
    expect(malformed.status).toBe(400);
    const noInputs = await call('POST', '/crm/v4/associations/contacts/companies/batch/read', {});
    expect(noInputs).toMatchObject({ status: 400, body: { errors: [{ in: 'inputs' }] } });
    // Every batch route: no body is HubSpot's text; bad fields one errors[] entry each, dotted paths.
    for (const route of ['create', 'associate/default', 'read', 'archive', 'labels/archive']) {
      const none = await call('POST', `/crm/v4/associations/contacts/companies/batch/${route}`);
      expect(none).toMatchObject({
        status: 400,
        body: { message: 'Invalid JSON input: a request body was expected, but none found' },
      });
      const notObject = await call('POST', `/crm/v4/associations/contacts/companies/batch/${route}`, [1]);
      expect(notObject).toMatchObject({ status: 400, body: { category: 'VALIDATION_ERROR' } });
    }
    const badIds = await call('POST', '/crm/v4/associations/contacts/companies/batch/create', {
      inputs: [
        { from: { id: 'x' }, to: {}, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1.5 }] },
      ],
    });
    expect(badIds.body!.errors.map((e: { in: string }) => e.in)).toEqual([
      'inputs.0.from.id',
      'inputs.0.to.id',
      'inputs.0.types.0.associationTypeId',
    ]);
    const badArchive = await call('POST', '/crm/v4/associations/contacts/companies/batch/archive', {
      inputs: [{ from: { id: 1 }, to: [{ id: 'two' }] }],
    });
    expect(badArchive).toMatchObject({ status: 400, body: { errors: [{ in: 'inputs.0.to.0.id' }] } });
    const badCursor = await call('POST', '/crm/v4/associations/contacts/companies/batch/read', {
      inputs: [{ id: '1', after: 'next' }],
    });
    expect(badCursor).toMatchObject({ status: 400, body: { errors: [{ in: 'inputs.0.after' }] } });
    const foreign = await call('PUT', `/crm/v4/objects/contacts/${a}/associations/companies/${co}`, [spec(279)], {
      token: otherToken,
    });
    expect(foreign.status).toBe(404);
  });

  it('batch read takes at most 1,000 inputs', async () => {
    const inputs = Array.from({ length: 1001 }, (_, i) => ({ id: String(i + 1) }));
    const r = await call('POST', '/crm/v4/associations/contacts/companies/batch/read', { inputs });
    expect(r).toMatchObject({ status: 400, body: { errors: [{ in: 'inputs', code: 'TOO_MANY_ITEMS' }] } });
    const ok = await call('POST', '/crm/v4/associations/contacts/companies/batch/read', {
      inputs: inputs.slice(0, 1000),
    });
    expect(ok.status).toBe(207);
  });

  it('missing scopes: 403', async () => {
    const narrow = mintRecordsToken(t, hubId, ['crm.objects.contacts.read']);
    const r = await call('PUT', '/crm/v4/objects/contacts/1/associations/companies/2', [spec(279)], { token: narrow });
    expect(r).toMatchObject({ status: 403, body: { category: 'MISSING_SCOPES' } });
  });
});
