import { Client } from '@hubspot/api-client';
import { mintRecordsToken, RECORDS_TEST_SCOPES } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * The limits of issue 37, item 7: GET …/limits/pipelines and …/limits/associations/records/{from,
 * {from}/to, {from}/{to}} at v3, 2026-03 and 2026-09, from the read models; and the association
 * definition configurations (crm.associations.v4.schema's configurations) that set a pair's
 * per-record limit, enforced on writes with HubSpot's Error body.
 */
let t: TestApp;
let client: Client;
let hubId: number;
let token: string;

const SCOPES = [...RECORDS_TEST_SCOPES, 'crm.objects.contacts.read'];

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t, { tier: 'starter' })).hubId;
  token = mintRecordsToken(t, hubId, SCOPES);
  client = new Client({ accessToken: token, basePath: t.url });
});

afterAll(async () => {
  await t?.close();
});

async function call(method: 'GET' | 'POST', url: string, body?: unknown, as = token) {
  const headers: Record<string, string> = { authorization: `Bearer ${as}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await t.inject({ method, url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.body === '' ? undefined : (r.json() as Record<string, any>) }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const spec = (associationTypeId: number) => ({ associationCategory: 'HUBSPOT_DEFINED', associationTypeId }) as never;

describe('GET …/limits/pipelines', () => {
  it('the default pipelines count against the tier’s ceiling; a new one adds to it', async () => {
    const before = await call('GET', '/crm/v3/limits/pipelines');
    expect(before.status).toBe(200);
    expect(before.body!.hubspotDefinedObjectTypes).toEqual([
      { objectTypeId: '0-3', singularLabel: 'Deal', pluralLabel: 'Deals', usage: 1, limit: 2, percentage: 50 },
      { objectTypeId: '0-5', singularLabel: 'Ticket', pluralLabel: 'Tickets', usage: 1, limit: 2, percentage: 50 },
    ]);
    await client.crm.pipelines.pipelinesApi.create('tickets', {
      label: 'Second',
      displayOrder: 1,
      stages: [{ label: 'Open', displayOrder: 0, metadata: { ticketState: 'OPEN' } }],
    });
    for (const url of ['/crm/v3/limits/pipelines', '/crm/limits/2026-03/pipelines', '/crm/limits/2026-09/pipelines']) {
      const r = await call('GET', url);
      expect(r.body!.hubspotDefinedObjectTypes[1]).toMatchObject({ usage: 2, percentage: 100 });
      expect(operationProblems('GET', url, 200, r.body)).toEqual([]);
    }
    const refused = await call('GET', '/crm/v3/limits/pipelines', undefined, mintRecordsToken(t, hubId, ['oauth']));
    expect(refused).toMatchObject({ status: 403, body: { category: 'MISSING_SCOPES' } });
  });
});

describe('GET …/limits/pipelines: custom object types', () => {
  it('lists a custom type once it has an active pipeline, per type, with the overall ceiling of every active custom type', async () => {
    const enterprise = (await createAccount(t, { tier: 'enterprise' })).hubId;
    const as = mintRecordsToken(t, enterprise, SCOPES);
    const custom = new Client({ accessToken: as, basePath: t.url });
    const schema = (name: string, singular: string, plural: string) =>
      custom.crm.schemas.coreApi.create({
        name,
        labels: { singular, plural },
        primaryDisplayProperty: 'title',
        requiredProperties: ['title'],
        properties: [{ name: 'title', label: 'Title', type: 'string' as never, fieldType: 'text' }],
        associatedObjects: [],
      });
    const boats = (await schema('boats', 'Boat', 'Boats')).objectTypeId!;
    const bikes = (await schema('bikes', 'Bike', 'Bikes')).objectTypeId!;
    const empty = await call('GET', '/crm/v3/limits/pipelines', undefined, as);
    // No custom pipeline yet: nothing listed; each active custom type may have 100 (enterprise).
    expect(empty.body!.customObjectTypes).toEqual({
      overallLimit: 200,
      overallUsage: 0,
      overallPercentage: 0,
      byObjectType: [],
    });
    const pipeline = (label: string) => ({
      label,
      displayOrder: 0,
      stages: [{ label: 'Open', displayOrder: 0, metadata: {} }],
    });
    await custom.crm.pipelines.pipelinesApi.create(bikes, pipeline('Rentals'));
    const second = await custom.crm.pipelines.pipelinesApi.create(bikes, pipeline('Repairs'));
    await custom.crm.pipelines.pipelinesApi.create(boats, pipeline('Charters'));
    const expected = {
      overallLimit: 200,
      overallUsage: 3,
      overallPercentage: 1.5,
      byObjectType: [
        { objectTypeId: boats, singularLabel: 'Boat', pluralLabel: 'Boats', usage: 1 },
        { objectTypeId: bikes, singularLabel: 'Bike', pluralLabel: 'Bikes', usage: 2 },
      ],
    };
    for (const url of ['/crm/v3/limits/pipelines', '/crm/limits/2026-03/pipelines', '/crm/limits/2026-09/pipelines']) {
      const r = await call('GET', url, undefined, as);
      expect(r.status).toBe(200);
      expect(r.body!.customObjectTypes).toEqual(expected);
      expect(r.body!.hubspotDefinedObjectTypes.map((x: { usage: number }) => x.usage)).toEqual([1, 1]);
      expect(operationProblems('GET', url, 200, r.body)).toEqual([]);
    }
    // An archived pipeline no longer counts; an archived type leaves the list and the overall ceiling.
    await custom.crm.pipelines.pipelinesApi.archive(bikes, second.id);
    await custom.crm.schemas.coreApi.archive(boats);
    const after = await call('GET', '/crm/v3/limits/pipelines', undefined, as);
    expect(after.body!.customObjectTypes).toEqual({
      overallLimit: 100,
      overallUsage: 1,
      overallPercentage: 1,
      byObjectType: [{ objectTypeId: bikes, singularLabel: 'Bike', pluralLabel: 'Bikes', usage: 1 }],
    });
  });
});

describe('association limits: configurations and the record association limits endpoints', () => {
  it('a configured per-record limit of contact→company: near at 80 %, at the limit, refused past it', async () => {
    const configured = await call(
      'POST',
      '/crm/associations/v4/definitions/configurations/contacts/companies/batch/create',
      {
        inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279, maxToObjectIds: 5 }],
      },
    );
    expect(configured.status).toBe(201);
    expect(configured.body!.results).toEqual([
      { category: 'HUBSPOT_DEFINED', typeId: 279, userEnforcedMaxToObjectIds: 5 },
    ]);
    expect(
      operationProblems(
        'POST',
        '/crm/associations/v4/definitions/configurations/{fromObjectType}/{toObjectType}/batch/create',
        201,
        configured.body,
      ),
    ).toEqual([]);
    const again = await call(
      'POST',
      '/crm/associations/v4/definitions/configurations/contacts/companies/batch/create',
      {
        inputs: [
          { category: 'HUBSPOT_DEFINED', typeId: 279, maxToObjectIds: 7 },
          { category: 'HUBSPOT_DEFINED', typeId: 3, maxToObjectIds: 1 },
        ],
      },
    );
    expect(again.status).toBe(207);
    expect(again.body!.numErrors).toBe(2);
    const pair = await call('GET', '/crm/associations/v4/definitions/configurations/contacts/companies');
    expect(pair.body!.results).toContainEqual({
      category: 'HUBSPOT_DEFINED',
      typeId: 279,
      userEnforcedMaxToObjectIds: 5,
    });

    const ada = (
      await client.crm.contacts.basicApi.create({ properties: { email: 'ada@example.com' }, associations: [] })
    ).id;
    const companies: string[] = [];
    for (let i = 0; i < 6; i++) {
      companies.push(
        (await client.crm.companies.basicApi.create({ properties: { name: `C${i}` }, associations: [] })).id,
      );
    }
    for (const c of companies.slice(0, 4))
      await client.crm.associations.v4.basicApi.create('contacts', ada, 'companies', c, [spec(279)]);

    const near = await call('GET', '/crm/v3/limits/associations/records/0-1/0-2');
    expect(near.body).toEqual({
      limit: 5,
      totalRecordsAtLimit: 0,
      totalRecordsNearLimit: 1,
      atLimitFromRecordSamples: [],
      nearLimitFromRecordSamples: [{ objectId: Number(ada), label: 'ada@example.com', usage: 4, percentage: 80 }],
    });
    expect(
      operationProblems(
        'GET',
        '/crm/v3/limits/associations/records/{fromObjectTypeId}/{toObjectTypeId}',
        200,
        near.body,
      ),
    ).toEqual([]);
    const from = await call('GET', '/crm/limits/2026-03/associations/records/from');
    expect(from.body!.results).toEqual([
      {
        objectTypeId: '0-1',
        singularLabel: 'Contact',
        pluralLabel: 'Contacts',
        hasRecordsNearLimit: true,
        hasRecordsAtLimit: false,
      },
    ]);
    expect(operationProblems('GET', '/crm/limits/2026-03/associations/records/from', 200, from.body)).toEqual([]);

    await client.crm.associations.v4.basicApi.create('contacts', ada, 'companies', companies[4]!, [spec(279)]);
    const to = await call('GET', '/crm/limits/2026-09/associations/records/contacts/to');
    expect(to.body!.results).toEqual([
      {
        objectTypeId: '0-2',
        singularLabel: 'Company',
        pluralLabel: 'Companies',
        hasRecordsNearLimit: false,
        hasRecordsAtLimit: true,
      },
    ]);
    const at = await call('GET', '/crm/v3/limits/associations/records/0-1/0-2');
    expect(at.body).toMatchObject({
      totalRecordsAtLimit: 1,
      totalRecordsNearLimit: 0,
      atLimitFromRecordSamples: [{ objectId: Number(ada), label: 'ada@example.com' }],
    });

    const past = await call('POST', '/crm/v4/associations/contacts/companies/batch/create', {
      inputs: [{ from: { id: ada }, to: { id: companies[5] }, types: [spec(279)] }],
    });
    expect(past.status).toBe(207);
    expect(past.body!.errors[0]).toMatchObject({
      category: 'VALIDATION_ERROR',
      errors: [{ code: 'ASSOCIATION_LIMIT_EXCEEDED' }],
    });

    // Raised, then removed: HubSpot's own ceiling again.
    const raised = await call(
      'POST',
      '/crm/associations/v4/definitions/configurations/contacts/companies/batch/update',
      {
        inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279, maxToObjectIds: 6 }],
      },
    );
    expect(raised).toMatchObject({ status: 200, body: { results: [{ typeId: 279, userEnforcedMaxToObjectIds: 6 }] } });
    const purged = await call(
      'POST',
      '/crm/associations/2026-03/definitions/configurations/contacts/companies/batch/purge',
      {
        inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279 }],
      },
    );
    expect(purged.status).toBe(200);
    const after = await call('GET', '/crm/v3/limits/associations/records/0-1/0-2');
    expect(after.body).toMatchObject({ limit: 10_000, totalRecordsAtLimit: 0, totalRecordsNearLimit: 0 });
  });

  it('bad input: unknown types, bad bodies, values out of range', async () => {
    const bad = await call('POST', '/crm/associations/v4/definitions/configurations/contacts/companies/batch/create', {
      inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body!.errors.map((e: { in: string }) => e.in)).toEqual(['inputs.0.typeId', 'inputs.0.maxToObjectIds']);
    const range = await call(
      'POST',
      '/crm/associations/v4/definitions/configurations/contacts/companies/batch/create',
      {
        inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 1, maxToObjectIds: 0 }],
      },
    );
    expect(range.status).toBe(207);
    expect(range.body!.errors[0].errors[0].code).toBe('INVALID_LIMIT');
    const unknownType = await call('GET', '/crm/v3/limits/associations/records/widgets/0-2');
    expect(unknownType.status).toBe(400);
  });
});
