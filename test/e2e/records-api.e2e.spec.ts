import { ORPHANED_CLAIM_AFTER_MS } from '../../src/crm-records/application/crm-records.handler';
import { CrmRecordEventType, recordStream, uniqueValueStream } from '../../src/crm-records/domain/record-events';
import { EventStreams } from '../../src/platform/commands/event-streams';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { CrmRecordsQueries, RecordHistory } from '../../src/crm-records/application/crm-records.queries';
import { RECORD_PAGE_SCHEMA, RECORD_SCHEMA } from '../../src/crm-records/http/wire-schemas';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems, wireProblems } from '../support/wire-schemas';

/**
 * The records routes over HTTP at every version, and what they answer to bad input: wrong types,
 * too many inputs, unknown ids, another account's ids, missing scopes, malformed JSON. Every 2xx
 * answer is checked against our wire schema of its operation.
 */
let t: TestApp;
let hubId: number;
let otherHubId: number;
let token: string;
let otherToken: string;

const VERSIONS = {
  v3: '/crm/v3/objects',
  '2026-03': '/crm/objects/2026-03',
  '2026-09': '/crm/objects/2026-09',
} as const;

beforeAll(async () => {
  t = await startTestApp();
  hubId = (await createAccount(t)).hubId;
  otherHubId = (await createAccount(t)).hubId;
  token = mintRecordsToken(t, hubId);
  otherToken = mintRecordsToken(t, otherHubId);
});

afterAll(async () => {
  await t?.close();
});

async function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  options: { token?: string; raw?: string } = {},
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

/** The HubSpot path template of a concrete records URL, for the wire-schema check. */
function template(url: string): string {
  const [path] = url.split('?');
  return path!.replace(
    /^(\/crm\/v3\/objects|\/crm\/objects\/20\d\d-\d\d)\/[^/]+(\/batch\/\w+|\/[^/]+)?$/,
    (_, base: string, rest?: string) =>
      `${base}/{objectType}${rest === undefined ? '' : rest.startsWith('/batch/') ? rest : '/{objectId}'}`,
  );
}

async function ok(
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  body?: unknown,
  status = method === 'POST' ? 201 : 200,
) {
  const r = await call(method, url, body);
  expect({ url, status: r.status, body: r.status === status ? undefined : r.body }).toEqual({
    url,
    status,
    body: undefined,
  });
  expect(operationProblems(method, template(url), status, r.body)).toEqual([]);
  return r.body!;
}

describe.each(Object.entries(VERSIONS))('records at %s', (version, base) => {
  const tag = version.replace('-', '');

  it('create, get, list, update, archive; archived reads only with archived=true', async () => {
    const created = await ok('POST', `${base}/contacts`, { properties: { email: `a-${tag}@example.com` } });
    const id = created.id as string;
    expect((await ok('GET', `${base}/0-1/${id}`)).properties).toMatchObject({ email: `a-${tag}@example.com` });
    expect((await ok('GET', `${base}/contact/${id}?properties=email,hs_object_id`)).properties).toEqual({
      email: `a-${tag}@example.com`,
      hs_object_id: id,
    });
    const updated = await ok('PATCH', `${base}/contacts/${id}`, { properties: { firstname: 'Ann', lastname: null } });
    expect(updated.properties).toMatchObject({ firstname: 'Ann' });
    const byEmail = await ok('PATCH', `${base}/contacts/A-${tag}@EXAMPLE.com?idProperty=email`, {
      properties: { lastname: 'Lee' },
    });
    expect(byEmail.id).toBe(id);

    expect((await call('DELETE', `${base}/contacts/${id}`)).status).toBe(204);
    expect(await call('GET', `${base}/contacts/${id}`)).toMatchObject({
      status: 404,
      body: { category: 'OBJECT_NOT_FOUND', message: 'Object not found.  objectId are usually numeric.' },
    });
    expect((await ok('GET', `${base}/contacts/${id}?archived=true`)).archivedAt).toEqual(expect.any(String));
    const archivedPage = await ok('GET', `${base}/contacts?archived=true&limit=100`);
    expect(archivedPage.results.every((r: { archived: boolean }) => r.archived)).toBe(true);
    expect(archivedPage.results.map((r: { id: string }) => r.id)).toContain(id);
    const livePage = await ok('GET', `${base}/contacts?limit=100`);
    expect(livePage.results.map((r: { id: string }) => r.id)).not.toContain(id);
    // Archived: its e-mail is free again.
    await ok('POST', `${base}/contacts`, { properties: { email: `a-${tag}@example.com` } });
  });

  it('batches: create, read, update, upsert, archive, with 207 (2026-09: 200/201) for partial results', async () => {
    const someFailed = (okStatus: number) => (version === '2026-09' ? okStatus : 207);
    const made = await ok('POST', `${base}/contacts/batch/create`, {
      inputs: [{ properties: { email: `b1-${tag}@example.com` } }, { properties: { email: `b2-${tag}@example.com` } }],
    });
    const ids = (made.results as Array<{ id: string }>).map((r) => r.id);
    expect(ids).toHaveLength(2);

    const partial = await ok(
      'POST',
      `${base}/contacts/batch/create`,
      {
        inputs: [
          { properties: { email: `b3-${tag}@example.com` } },
          { properties: { email: `b1-${tag}@example.com` } },
        ],
      },
      someFailed(201),
    );
    expect(partial.numErrors).toBe(1);
    expect(partial.errors[0]).toMatchObject({
      category: 'CONFLICT',
      message: `Contact already exists. Existing ID: ${ids[0]}`,
      context: { inputIndex: ['1'] },
    });

    const read = await ok(
      'POST',
      `${base}/contacts/batch/read`,
      { inputs: [{ id: ids[0] }, { id: '424242' }], properties: ['email'], propertiesWithHistory: ['email'] },
      someFailed(200),
    );
    expect(read.results).toHaveLength(1);
    expect(read.results[0].propertiesWithHistory.email[0]).toMatchObject({ value: `b1-${tag}@example.com` });
    expect(read.errors[0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { ids: ['424242'] } });

    const byEmail = await ok(
      'POST',
      `${base}/contacts/batch/read`,
      { inputs: [{ id: `b2-${tag}@example.com` }], idProperty: 'email', properties: ['email'] },
      200,
    );
    expect(byEmail.results.map((r: { id: string }) => r.id)).toEqual([ids[1]]);

    const updated = await ok(
      'POST',
      `${base}/contacts/batch/update`,
      {
        inputs: [
          { id: ids[0], properties: { firstname: 'B' } },
          { id: '424242', properties: { firstname: 'C' } },
        ],
      },
      someFailed(200),
    );
    expect(updated.results.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(updated.errors[0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { id: ['424242'] } });

    const upserted = await ok(
      'POST',
      `${base}/contacts/batch/upsert`,
      {
        inputs: [
          { id: `b2-${tag}@example.com`, idProperty: 'email', properties: { firstname: 'Up' } },
          { id: `b9-${tag}@example.com`, idProperty: 'email', properties: { firstname: 'New' } },
        ],
      },
      200,
    );
    expect(upserted.results.map((r: { id: string; new: boolean }) => [r.id === ids[1], r.new])).toEqual([
      [true, false],
      [false, true],
    ]);

    expect(
      (await call('POST', `${base}/contacts/batch/archive`, { inputs: [{ id: ids[0] }, { id: '424242' }] })).status,
    ).toBe(204);
    expect((await call('GET', `${base}/contacts/${ids[0]}`)).status).toBe(404);
  });
});

describe('bad input', () => {
  const base = VERSIONS.v3;

  it('wrong types in a body: 400 VALIDATION_ERROR naming each field', async () => {
    expect(await call('POST', `${base}/contacts`, { properties: ['x'] })).toMatchObject({
      status: 400,
      body: { category: 'VALIDATION_ERROR', errors: [{ in: 'properties' }] },
    });
    expect(
      await call('POST', `${base}/contacts`, { properties: { firstname: { a: 1 }, lastname: [1] } }),
    ).toMatchObject({
      status: 400,
      body: {
        errors: [
          {
            in: 'properties',
            message: 'properties.firstname, properties.lastname must be a string, a number, a boolean or null',
          },
        ],
      },
    });
    expect(await call('POST', `${base}/contacts`, [1, 2])).toMatchObject({
      status: 400,
      body: { category: 'VALIDATION_ERROR' },
    });
    for (const route of ['create', 'read', 'update', 'upsert', 'archive']) {
      expect(await call('POST', `${base}/contacts/batch/${route}`, { inputs: 'x' })).toMatchObject({
        status: 400,
        body: { category: 'VALIDATION_ERROR', errors: [{ in: 'inputs' }] },
      });
      expect(await call('POST', `${base}/contacts/batch/${route}`, { inputs: [5] })).toMatchObject({ status: 400 });
    }
    expect(await call('POST', `${base}/contacts/batch/update`, { inputs: [{ id: {}, properties: {} }] })).toMatchObject(
      {
        status: 400,
        body: { errors: [{ in: 'inputs.0.id' }] },
      },
    );
    expect(
      await call('POST', `${base}/contacts/batch/upsert`, { inputs: [{ id: 'x', properties: {} }] }),
    ).toMatchObject({
      status: 400,
      body: { errors: [{ in: 'inputs.0.idProperty', code: 'REQUIRED' }] },
    });
  });

  it('malformed JSON: 400, never a 5xx', async () => {
    for (const [method, url] of [
      ['POST', `${base}/contacts`],
      ['PATCH', `${base}/contacts/1`],
      ['POST', `${base}/contacts/batch/create`],
      ['POST', `${base}/contacts/batch/read`],
      ['POST', `${base}/contacts/batch/update`],
      ['POST', `${base}/contacts/batch/upsert`],
      ['POST', `${base}/contacts/batch/archive`],
    ] as const) {
      const r = await call(method, url, undefined, { raw: '{"properties": {' });
      expect({ url, status: r.status, category: r.body?.category }).toEqual({
        url,
        status: 400,
        category: 'VALIDATION_ERROR',
      });
    }
  });

  it('101 inputs: 400 on every batch route; batch read with history takes 50', async () => {
    const inputs = Array.from({ length: 101 }, (_, i) => ({ id: String(i + 1), properties: {}, idProperty: 'email' }));
    for (const route of ['create', 'read', 'update', 'upsert', 'archive']) {
      const r = await call('POST', `${base}/contacts/batch/${route}`, { inputs });
      expect({ route, status: r.status, message: r.body?.message }).toEqual({
        route,
        status: 400,
        message: 'Too many inputs: 101. A batch takes at most 100 inputs.',
      });
    }
    const r = await call('POST', `${base}/contacts/batch/read`, {
      inputs: inputs.slice(0, 51),
      propertiesWithHistory: ['email'],
    });
    expect(r).toMatchObject({
      status: 400,
      body: { message: 'Too many inputs: 51. A batch read with propertiesWithHistory takes at most 50 inputs.' },
    });
    expect(
      (
        await call('POST', `${base}/contacts/batch/read`, {
          inputs: inputs.slice(0, 50),
          propertiesWithHistory: ['email'],
        })
      ).status,
    ).toBe(207);
  });

  it('query values: limit, after, archived', async () => {
    expect((await call('GET', `${base}/contacts?limit=101`)).status).toBe(400);
    expect((await call('GET', `${base}/contacts?limit=0`)).status).toBe(400);
    expect((await call('GET', `${base}/contacts?limit=abc`)).status).toBe(400);
    expect((await call('GET', `${base}/contacts?after=xyz`)).status).toBe(400);
    expect((await call('GET', `${base}/contacts?archived=maybe`)).status).toBe(400);
    expect((await call('GET', `${base}/contacts?limit=100&unknownParameter=1&associations=companies`)).status).toBe(
      200,
    );
    expect((await call('GET', `${base}/contacts/1?idProperty=firstname`)).body).toMatchObject({
      category: 'VALIDATION_ERROR',
    });
  });

  it('unknown ids and object types', async () => {
    expect((await call('GET', `${base}/contacts/99999999`)).status).toBe(404);
    expect((await call('GET', `${base}/contacts/not-a-number`)).status).toBe(404);
    expect((await call('GET', `${base}/contacts/${'9'.repeat(30)}`)).status).toBe(404);
    expect((await call('PATCH', `${base}/contacts/99999999`, { properties: {} })).status).toBe(404);
    expect((await call('DELETE', `${base}/contacts/99999999`)).status).toBe(204);
    expect(await call('GET', `${base}/nosuchtype`)).toMatchObject({
      status: 400,
      body: { message: 'Unable to infer object type from: nosuchtype' },
    });
  });

  it('another account’s records are 404 to this account, and untouched by its writes', async () => {
    const mine = await call('POST', `${base}/deals`, { properties: { dealname: 'Mine' } });
    const id = mine.body!.id as string;
    expect((await call('GET', `${base}/deals/${id}`, undefined, { token: otherToken })).status).toBe(404);
    expect(
      (await call('PATCH', `${base}/deals/${id}`, { properties: { dealname: 'Theirs' } }, { token: otherToken }))
        .status,
    ).toBe(404);
    expect((await call('DELETE', `${base}/deals/${id}`, undefined, { token: otherToken })).status).toBe(204);
    const read = await call('POST', `${base}/deals/batch/read`, { inputs: [{ id }] }, { token: otherToken });
    expect(read).toMatchObject({ status: 207, body: { results: [], numErrors: 1 } });
    expect((await call('GET', `${base}/deals/${id}`)).body).toMatchObject({ properties: { dealname: 'Mine' } });
    // Ids are per account: the other account's first deal may have the same number, and is its own.
    const theirs = await call('POST', `${base}/deals`, { properties: { dealname: 'Theirs' } }, { token: otherToken });
    expect(theirs.status).toBe(201);
  });

  it('missing scopes: 403 MISSING_SCOPES naming the accepted ones; no token: 401', async () => {
    const readOnly = mintRecordsToken(t, hubId, ['crm.objects.contacts.read']);
    expect((await call('GET', `${base}/contacts`, undefined, { token: readOnly })).status).toBe(200);
    expect(await call('POST', `${base}/contacts`, { properties: {} }, { token: readOnly })).toMatchObject({
      status: 403,
      body: {
        category: 'MISSING_SCOPES',
        context: { requiredScopes: expect.arrayContaining(['crm.objects.contacts.write']) },
      },
    });
    expect(await call('GET', `${base}/companies`, undefined, { token: readOnly })).toMatchObject({
      status: 403,
      body: { context: { requiredScopes: expect.arrayContaining(['crm.objects.companies.read']) } },
    });
    expect(await call('GET', `${base}/tickets`, undefined, { token: readOnly })).toMatchObject({
      status: 403,
      body: { context: { requiredScopes: expect.arrayContaining(['tickets']) } },
    });
    for (const route of ['create', 'update', 'upsert', 'archive']) {
      expect((await call('POST', `${base}/contacts/batch/${route}`, { inputs: [] }, { token: readOnly })).status).toBe(
        403,
      );
    }
    const r = await t.inject({ method: 'GET', url: `${base}/contacts` });
    expect(r.statusCode).toBe(401);
  });

  it('property values of every type are checked (400 with HubSpot’s codes)', async () => {
    const property = await t.inject({
      method: 'POST',
      url: '/crm/v3/properties/contacts',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'tier',
        label: 'Tier',
        type: 'enumeration',
        fieldType: 'select',
        groupName: 'contactinformation',
        options: [{ label: 'Gold', value: 'gold' }],
      }),
    });
    expect(property.statusCode).toBe(201);
    const r = await call('POST', `${base}/contacts`, { properties: { tier: 'bronze' } });
    expect(r).toMatchObject({ status: 400, body: { errors: [{ in: 'tier', code: 'INVALID_OPTION' }] } });
    expect((await call('POST', `${base}/contacts`, { properties: { tier: 'gold' } })).status).toBe(201);
  });
});

describe('a claim left by a create that never completed', () => {
  it('keeps its value while the create may be under way, then frees it and spends the id', async () => {
    // The state a process killed between the claim and the record leaves behind.
    const streams = t.app.get(EventStreams);
    const context = { correlationId: 'test', actor: 'test' };
    await streams.append(
      uniqueValueStream(hubId, '0-1', 'email', 'orphan@example.com'),
      [
        {
          type: CrmRecordEventType.UniqueValueClaimed,
          data: { hubId, objectTypeId: '0-1', property: 'email', id: 900_000, claimedAt: t.clock.now() },
        },
      ],
      'no_stream',
      context,
    );
    const young = await call('POST', '/crm/v3/objects/contacts', { properties: { email: 'Orphan@example.com' } });
    expect(young).toMatchObject({ status: 409, body: { message: 'Contact already exists. Existing ID: 900000' } });

    t.clock.advance(ORPHANED_CLAIM_AFTER_MS);
    const taken = await call('POST', '/crm/v3/objects/contacts', { properties: { email: 'orphan@example.com' } });
    expect(taken.status).toBe(201);
    // The id of the create that never completed is spent: that create can no longer be stored.
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(recordStream(hubId, '0-1', 900_000));
    expect(events.map((e) => e.type)).toEqual([CrmRecordEventType.RecordIdVoided]);
  });
});

describe('GET /crm/v3/limits/records and its dated forms', () => {
  it('counts non-archived records per object type against HubSpot’s ceilings', async () => {
    const fresh = (await createAccount(t)).hubId;
    const freshToken = mintRecordsToken(t, fresh);
    const post = (type: string, properties: Record<string, string>) =>
      call('POST', `/crm/v3/objects/${type}`, { properties }, { token: freshToken });
    await post('contacts', { email: 'l1@example.com' });
    const gone = await post('contacts', { email: 'l2@example.com' });
    await call('DELETE', `/crm/v3/objects/contacts/${gone.body!.id}`, undefined, { token: freshToken });
    await post('companies', { name: 'C' });
    for (const path of ['/crm/v3/limits/records', '/crm/limits/2026-03/records', '/crm/limits/2026-09/records']) {
      const r = await call('GET', path, undefined, { token: freshToken });
      expect(r.status).toBe(200);
      expect(operationProblems('GET', path, 200, r.body)).toEqual([]);
      const byType = Object.fromEntries(
        (r.body!.hubspotDefinedObjectTypes as Array<{ objectTypeId: string; usage: number; limit: number }>).map(
          (x) => [x.objectTypeId, [x.usage, x.limit]],
        ),
      );
      expect(byType).toEqual({
        '0-1': [1, 15_000_000],
        '0-2': [1, 15_000_000],
        '0-3': [0, 15_000_000],
        '0-5': [0, 15_000_000],
      });
      expect(r.body!.customObjectTypes).toEqual({
        overallLimit: 500_000,
        overallUsage: 0,
        overallPercentage: 0,
        byObjectType: [],
      });
    }
    const noScope = mintRecordsToken(t, fresh, ['oauth']);
    expect(await call('GET', '/crm/v3/limits/records', undefined, { token: noScope })).toMatchObject({
      status: 403,
      body: { category: 'MISSING_SCOPES' },
    });
  });
});

describe('the crm-records read model', () => {
  it('rebuilt from zero answers the same pages, records and archived records', async () => {
    const base = VERSIONS.v3;
    const r1 = await call('POST', `${base}/companies`, { properties: { name: 'Rebuilt', domain: 'r.example' } });
    await call('PATCH', `${base}/companies/${r1.body!.id}`, { properties: { name: 'Rebuilt 2' } });
    const r2 = await call('POST', `${base}/companies`, { properties: { name: 'Gone' } });
    await call('DELETE', `${base}/companies/${r2.body!.id}`);
    const reads = async () => ({
      live: (await call('GET', `${base}/companies?limit=100&properties=name,domain`)).body,
      archived: (await call('GET', `${base}/companies?limit=100&archived=true`)).body,
      one: (await call('GET', `${base}/companies/${r1.body!.id}`)).body,
      contacts: (await call('GET', `${base}/contacts?limit=100`)).body,
    });
    const before = await reads();
    await t.app.get(ProjectionRunner).rebuild('crm-records');
    expect(await reads()).toEqual(before);
    expect(before.one).toMatchObject({ properties: { name: 'Rebuilt 2', domain: 'r.example' } });
  });
});

describe('hasUniqueValue properties', () => {
  it('are unique per account and type: a second record with the value is 409; upsert and reads resolve by them', async () => {
    const base = VERSIONS['2026-03'];
    const property = await t.inject({
      method: 'POST',
      url: '/crm/v3/properties/deals',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'external_ref',
        label: 'External reference',
        type: 'string',
        fieldType: 'text',
        groupName: 'dealinformation',
        hasUniqueValue: true,
      }),
    });
    expect(property.statusCode).toBe(201);
    const first = await ok('POST', `${base}/deals`, { properties: { dealname: 'One', external_ref: 'X-1' } });
    expect(await call('POST', `${base}/deals`, { properties: { dealname: 'Two', external_ref: 'X-1' } })).toMatchObject(
      {
        status: 409,
        body: {
          category: 'CONFLICT',
          message: `A record with the same value of the unique property external_ref already exists. Existing ID: ${first.id}`,
        },
      },
    );
    // Not unique: another deal may share its name.
    expect((await call('POST', `${base}/deals`, { properties: { dealname: 'One' } })).status).toBe(201);
    expect((await ok('GET', `${base}/deals/X-1?idProperty=external_ref`)).id).toBe(first.id);
    const upserted = await ok(
      'POST',
      `${base}/deals/batch/upsert`,
      {
        inputs: [
          { id: 'X-1', idProperty: 'external_ref', properties: { amount: '5' } },
          { id: 'X-2', idProperty: 'external_ref', properties: { dealname: 'Three' } },
        ],
      },
      200,
    );
    expect(upserted.results.map((r: { id: string; new: boolean }) => [r.id === first.id, r.new])).toEqual([
      [true, false],
      [false, true],
    ]);
    // A changed value frees the old one.
    await ok('PATCH', `${base}/deals/${first.id}`, { properties: { external_ref: 'X-9' } });
    expect((await call('POST', `${base}/deals`, { properties: { external_ref: 'X-1' } })).status).toBe(201);
    expect((await call('POST', `${base}/deals`, { properties: { external_ref: 'X-9' } })).status).toBe(409);
  });
});

describe('what the serialized GETs’ handlers return, before the serializer', () => {
  // fast-json-stringify drops what a schema does not declare: the reads behind the two serialized
  // GETs must hold nothing more (closed schemas, validated strictly), or a new field would vanish unseen.
  it('a record (with history) and a page: exactly their schemas', async () => {
    const created = await call('POST', '/crm/v3/objects/contacts', { properties: { email: 'serialized@example.com' } });
    const id = Number(created.body!.id);
    await call('DELETE', `/crm/v3/objects/contacts/${id}`);
    const queries = t.app.get(CrmRecordsQueries);
    const archived = queries.get(hubId, '0-1', id, true)!;
    const history = await t.app.get(RecordHistory).of(hubId, '0-1', id, ['email', 'hs_object_id']);
    expect(wireProblems(RECORD_SCHEMA, { ...archived, propertiesWithHistory: history })).toEqual([]);
    const page = queries.page(hubId, '0-1', { archived: false, after: 0, limit: 2 });
    expect(
      wireProblems(RECORD_PAGE_SCHEMA, { results: page.results, paging: { next: { after: '1', link: 'x' } } }),
    ).toEqual([]);
  });
});
