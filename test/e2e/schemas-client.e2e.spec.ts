import { Client } from '@hubspot/api-client';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * @hubspot/api-client v14's crm.schemas (coreApi) against the service on 127.0.0.1 with only
 * basePath changed: create, update, createAssociation, archiveAssociation, getAll, getById. The
 * client exposes no batch read on crm.schemas, so batch/read and the association-label limits go
 * through client.apiRequest.
 */
let t: TestApp;
let client: Client;
let hubId: number;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule], listen: true });
  hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  client = new Client({
    accessToken: mintLimitsToken(t, { hubId, userId: 9, scopes: LIMITS_TEST_SCOPES }),
    basePath: t.url,
  });
});

afterAll(async () => {
  await t?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked against the spec
type Json = any;

async function failure(p: Promise<unknown>): Promise<{ code: number; body: Json }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: typeof e.body === 'string' ? JSON.parse(e.body) : e.body };
  }
  throw new Error('expected the call to fail');
}

async function apiJson(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await client.apiRequest({ method, path, ...(body === undefined ? {} : { body }) });
  return { status: response.status, body: await response.json() };
}

describe('@hubspot/api-client v14 crm.schemas', () => {
  it('create, update (PATCH), createAssociation, archiveAssociation, getAll, getById', async () => {
    const cars = await client.crm.schemas.coreApi.create({
      name: 'cars',
      labels: { singular: 'car', plural: 'cars' },
      primaryDisplayProperty: 'model',
      requiredProperties: ['model'],
      properties: [
        { name: 'model', label: 'Model', type: 'string' as never, fieldType: 'text' },
        { name: 'year', label: 'Year', type: 'number' as never, fieldType: 'number' },
      ],
      associatedObjects: ['CONTACT'],
    });
    expect(cars.objectTypeId).toBe('2-1');

    const updated = await client.crm.schemas.coreApi.update('cars', {
      labels: { singular: 'Car', plural: 'Cars' },
      description: 'Cars we sell',
      searchableProperties: ['model', 'year'],
      requiredProperties: ['model', 'year'],
    });
    expect(updated).toMatchObject({
      id: '1',
      objectTypeId: '2-1',
      name: 'cars',
      labels: { singular: 'Car', plural: 'Cars' },
      description: 'Cars we sell',
      requiredProperties: ['model', 'year'],
      portalId: hubId,
    });
    expect(updated.updatedAt).toBeInstanceOf(Date);

    const association = await client.crm.schemas.coreApi.createAssociation('2-1', {
      fromObjectTypeId: '2-1',
      toObjectTypeId: '0-2',
      name: 'car_to_dealer',
    });
    expect(association).toMatchObject({
      id: '2',
      fromObjectTypeId: '2-1',
      toObjectTypeId: '0-2',
      name: 'car_to_dealer',
    });
    expect(association.createdAt).toBeInstanceOf(Date);

    const one = await client.crm.schemas.coreApi.getById(`p${hubId}_cars`);
    expect(one.associations.map((a) => a.id)).toEqual(['1', '2']);
    expect(one.labels).toEqual({ singular: 'Car', plural: 'Cars' });
    expect((await client.crm.schemas.coreApi.getAll()).results.map((s) => s.name)).toEqual(['cars']);

    const labels = await apiJson('GET', '/crm/v3/limits/associations/labels');
    expect(labels.status).toBe(200);
    expect(validateResponse('limitsTracking.json', 'GET', '/crm/v3/limits/associations/labels', labels.body)).toEqual(
      [],
    );
    expect(labels.body.results).toEqual([
      expect.objectContaining({ toObjectType: expect.objectContaining({ objectTypeId: '0-1' }), usage: 0 }),
      expect.objectContaining({ toObjectType: expect.objectContaining({ objectTypeId: '0-2' }), usage: 1, limit: 50 }),
    ]);

    await client.crm.schemas.coreApi.archiveAssociation('cars', '2');
    expect((await client.crm.schemas.coreApi.getById('2-1')).associations.map((a) => a.id)).toEqual(['1']);
    const after = await apiJson('GET', '/crm/v3/limits/associations/labels?toObjectTypeId=0-2');
    expect(after.body).toEqual({ results: [] });
  });

  it('batch/read through apiRequest; errors surface as ApiException with HubSpot bodies', async () => {
    const path = '/crm-object-schemas/v3/schemas/batch/read';
    const read = await apiJson('POST', path, {
      includeAssociationDefinitions: true,
      includeAuditMetadata: true,
      includePropertyDefinitions: false,
      inputs: ['cars'],
    });
    expect(read.status).toBe(200);
    expect(validateResponse('v3/schemas.json', 'POST', path, read.body)).toEqual([]);
    expect(read.body.results[0]).toMatchObject({ name: 'cars', properties: [] });

    expect(await failure(client.crm.schemas.coreApi.update('nope', { description: 'x' }))).toMatchObject({
      code: 404,
      body: { category: 'OBJECT_NOT_FOUND' },
    });
    const bad = await failure(
      client.crm.schemas.coreApi.createAssociation('cars', { fromObjectTypeId: '2-1', toObjectTypeId: 'unicorns' }),
    );
    expect(bad).toMatchObject({ code: 400, body: { category: 'VALIDATION_ERROR' } });
    expect(await failure(client.crm.schemas.coreApi.archiveAssociation('cars', '99'))).toMatchObject({
      code: 404,
      body: { category: 'OBJECT_NOT_FOUND' },
    });
  });
});
