import { Client } from '@hubspot/api-client';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * HubSpot's official Node client (v14) against the service listening on 127.0.0.1, changing only
 * basePath: the properties and schemas APIs through its typed clients, the limits endpoints
 * (which it has no typed client for) through client.apiRequest.
 */
let t: TestApp;
let client: Client;
let professionalClient: Client;
let hubId: number;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule], listen: true });
  hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  const pro = (await createAccount(t, { tier: 'professional' })).hubId;
  client = new Client({
    accessToken: mintLimitsToken(t, { hubId, userId: 5, scopes: LIMITS_TEST_SCOPES }),
    basePath: t.url,
  });
  professionalClient = new Client({
    accessToken: mintLimitsToken(t, { hubId: pro, scopes: LIMITS_TEST_SCOPES }),
    basePath: t.url,
  });
});

afterAll(async () => {
  await t?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON body checked against the spec just below
type Json = any;

async function limits(c: Client, path: string): Promise<Json> {
  const response = await c.apiRequest({ method: 'GET', path });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as Json;
  expect(validateResponse('limitsTracking.json', 'GET', path, body)).toEqual([]);
  return body;
}

/** The client throws ApiException-like errors carrying the HTTP code and HubSpot's Error body. */
async function failure(
  p: Promise<unknown>,
): Promise<{ code: number; body: { category: string; subCategory?: string; message: string } }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

describe('@hubspot/api-client v14 against the limits module', () => {
  it('properties coreApi: create calculated properties, read them, archive one', async () => {
    const created = await client.crm.properties.coreApi.create('contacts', {
      name: 'lead_score_x2',
      label: 'Lead score x2',
      type: 'number' as never,
      fieldType: 'calculation_equation' as never,
      groupName: 'contactinformation',
      calculationFormula: 'hs_object_id * 2',
    });
    expect(created).toMatchObject({
      name: 'lead_score_x2',
      calculated: true,
      calculationFormula: 'hs_object_id * 2',
      archived: false,
    });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.createdAt!.getTime()).toBe(t.clock.now());

    await client.crm.properties.coreApi.create('deals', {
      name: 'amount_with_tax',
      label: 'Amount with tax',
      type: 'number' as never,
      fieldType: 'calculation_equation' as never,
      groupName: 'dealinformation',
      calculationFormula: 'amount * 1.2',
    });
    const all = await client.crm.properties.coreApi.getAll('deals');
    expect(all.results.map((p) => p.name)).toEqual(expect.arrayContaining(['dealname', 'amount_with_tax']));
    const one = await client.crm.properties.coreApi.getByName('0-3', 'amount_with_tax');
    expect(one).toMatchObject({ fieldType: 'calculation_equation', modificationMetadata: { archivable: true } });

    expect(await limits(client, '/crm/v3/limits/calculated-properties')).toMatchObject({
      overallLimit: 400,
      overallUsage: 2,
      overallPercentage: 0.5,
    });
    await client.crm.properties.coreApi.archive('contacts', 'lead_score_x2');
    expect(await limits(client, '/crm/v3/limits/calculated-properties')).toMatchObject({
      overallUsage: 1,
      byObjectType: [{ objectTypeId: '0-3', singularLabel: 'Deal', pluralLabel: 'Deals', usage: 1 }],
    });
    const archived = await client.crm.properties.coreApi.getAll('contacts', true);
    expect(archived.results.map((p) => [p.name, p.archived])).toEqual([['lead_score_x2', true]]);
  });

  it('a duplicate name surfaces as a 409 CONFLICT ApiException', async () => {
    const dup = await failure(
      client.crm.properties.coreApi.create('deals', {
        name: 'amount_with_tax',
        label: 'again',
        type: 'number' as never,
        fieldType: 'number' as never,
        groupName: 'dealinformation',
      }),
    );
    expect(dup).toMatchObject({ code: 409, body: { category: 'CONFLICT' } });
  });

  it('schemas coreApi: create two custom object types, read, archive; the limits follow', async () => {
    const egg = (name: string) => ({
      name,
      labels: { singular: name.slice(0, -1), plural: name },
      primaryDisplayProperty: 'model',
      requiredProperties: ['model'],
      properties: [{ name: 'model', label: 'Model', type: 'string' as never, fieldType: 'text' }],
      associatedObjects: ['CONTACT'],
    });
    const cars = await client.crm.schemas.coreApi.create(egg('cars'));
    expect(cars).toMatchObject({
      objectTypeId: '2-1',
      fullyQualifiedName: `p${hubId}_cars`,
      labels: { singular: 'car', plural: 'cars' },
    });
    // HubSpot's own properties of every custom object come first, then the schema's.
    expect(cars.properties.filter((p) => !p.hubspotDefined).map((p) => p.name)).toEqual(['model']);
    expect(cars.properties.filter((p) => p.hubspotDefined).map((p) => p.name)).toEqual(
      expect.arrayContaining(['hs_object_id', 'hs_createdate', 'hs_lastmodifieddate', 'hs_created_by_user_id']),
    );
    expect(cars.associations[0]).toMatchObject({ fromObjectTypeId: '2-1', toObjectTypeId: '0-1' });
    const bikes = await client.crm.schemas.coreApi.create(egg('bikes'));
    expect(bikes.objectTypeId).toBe('2-2');

    expect(await limits(client, '/crm/v3/limits/custom-object-types')).toEqual({ limit: 10, usage: 2, percentage: 20 });
    expect((await client.crm.schemas.coreApi.getAll()).results.map((s) => s.name)).toEqual(['cars', 'bikes']);
    expect((await client.crm.schemas.coreApi.getById(`p${hubId}_bikes`)).id).toBe('2');

    // a calculated property on the custom type, through the properties client
    await client.crm.properties.coreApi.create('2-1', {
      name: 'model_upper',
      label: 'Model (upper)',
      type: 'string' as never,
      fieldType: 'calculation_equation' as never,
      groupName: 'cars_information',
      calculationFormula: 'string(model)',
    });
    const calc = await limits(client, '/crm/v3/limits/calculated-properties');
    expect(calc.byObjectType).toContainEqual({
      objectTypeId: '2-1',
      singularLabel: 'car',
      pluralLabel: 'cars',
      usage: 1,
    });
    const custom = await limits(client, '/crm/v3/limits/custom-properties');
    expect(custom.byObjectType).toContainEqual(expect.objectContaining({ objectTypeId: '2-1', usage: 2, limit: 1000 }));

    await client.crm.schemas.coreApi.archive('2-1');
    expect(await limits(client, '/crm/v3/limits/custom-object-types')).toEqual({ limit: 10, usage: 1, percentage: 10 });
    expect((await limits(client, '/crm/v3/limits/calculated-properties')).overallUsage).toBe(1);
    const gone = await failure(client.crm.schemas.coreApi.getById('2-1'));
    expect(gone).toMatchObject({ code: 404, body: { category: 'OBJECT_NOT_FOUND' } });
  });

  it('the professional account is refused custom object types with a clear message', async () => {
    const refused = await failure(
      professionalClient.crm.schemas.coreApi.create({
        name: 'cars',
        labels: { singular: 'Car', plural: 'Cars' },
        requiredProperties: [],
        properties: [],
        associatedObjects: [],
      }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body).toMatchObject({
      category: 'VALIDATION_ERROR',
      subCategory: 'LIMITS.CUSTOM_OBJECT_TYPES_LIMIT_EXCEEDED',
    });
    expect(refused.body.message).toContain('0 of 0 in use');
    expect(await limits(professionalClient, '/crm/v3/limits/custom-object-types')).toEqual({
      limit: 0,
      usage: 0,
      percentage: 0,
    });
  });
});
