import { Client } from '@hubspot/api-client';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * @hubspot/api-client v14's crm.properties (coreApi, batchApi, groupsApi) against the service on
 * 127.0.0.1, with only basePath changed: what an app does at install (a group, a batch of
 * properties, a patch later), and a batch that crosses the ceiling half-way (207).
 */
let t: TestApp;
let client: Client;
let hubId: number;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule], listen: true });
  hubId = (await createAccount(t, { tier: 'professional' })).hubId;
  await t.admin('PUT', `/admin/v1/accounts/${hubId}/limits`, { calculatedProperties: 2 });
  client = new Client({
    accessToken: mintLimitsToken(t, { hubId, userId: 9, scopes: LIMITS_TEST_SCOPES }),
    basePath: t.url,
  });
});

afterAll(async () => {
  await t?.close();
});

async function failure(
  p: Promise<unknown>,
): Promise<{ code: number; body: { category: string; subCategory?: string; errors: Array<{ in: string }> } }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

const calc = (name: string) => ({
  name,
  label: name,
  type: 'number' as never,
  fieldType: 'calculation_equation' as never,
  groupName: 'myapp',
  calculationFormula: 'hs_object_id * 2',
});

describe('@hubspot/api-client v14 crm.properties', () => {
  it('groupsApi: create, list, read, update; archive refused while it holds properties', async () => {
    const created = await client.crm.properties.groupsApi.create('deals', { name: 'myapp', label: 'My app' });
    expect(created).toEqual({ name: 'myapp', label: 'My app', displayOrder: -1, archived: false });
    const all = await client.crm.properties.groupsApi.getAll('deals');
    expect(all.results.map((g) => g.name)).toEqual(expect.arrayContaining(['dealinformation', 'myapp']));
    expect(await client.crm.properties.groupsApi.getByName('deals', 'myapp')).toMatchObject({ label: 'My app' });
    const updated = await client.crm.properties.groupsApi.update('deals', 'myapp', {
      label: 'My app!',
      displayOrder: 2,
    });
    expect(updated).toMatchObject({ label: 'My app!', displayOrder: 2 });
  });

  it('batchApi.create: 201 for a batch that fits, 207 with errors for one that crosses the ceiling', async () => {
    const fits = await client.crm.properties.batchApi.create('deals', {
      inputs: [
        calc('first_calc'),
        { ...calc('plain_one'), type: 'string' as never, fieldType: 'text' as never, calculationFormula: undefined },
      ],
    });
    expect(fits.results.map((p) => p.name)).toEqual(['first_calc', 'plain_one']);
    expect(fits.completedAt).toBeInstanceOf(Date);

    const crossing = await client.crm.properties.batchApi.createWithHttpInfo('deals', {
      inputs: [calc('second_calc'), calc('third_calc')],
    });
    expect(crossing.httpStatusCode).toBe(207);
    const body = crossing.data as {
      results: Array<{ name: string }>;
      errors?: Array<{ category: string; context: Record<string, string[]> }>;
    };
    expect(body.results.map((p) => p.name)).toEqual(['second_calc']);
    expect(body.errors).toEqual([
      expect.objectContaining({
        category: 'VALIDATION_ERROR',
        context: expect.objectContaining({ inputIndex: ['1'] }),
      }),
    ]);
    const limits = await client.apiRequest({ method: 'GET', path: '/crm/v3/limits/calculated-properties' });
    expect(await limits.json()).toMatchObject({ overallLimit: 2, overallUsage: 2 });
  });

  it('coreApi.update: a patch past the ceiling is refused; a calculated property keeps its type and field type', async () => {
    const refused = await failure(
      client.crm.properties.coreApi.update('deals', 'plain_one', {
        type: 'number' as never,
        fieldType: 'calculation_equation' as never,
        calculationFormula: 'amount',
      }),
    );
    expect(refused).toMatchObject({ code: 400, body: { subCategory: 'LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED' } });
    const frozen = await failure(
      client.crm.properties.coreApi.update('deals', 'first_calc', {
        type: 'string' as never,
        fieldType: 'text' as never,
        label: 'No longer calculated',
      }),
    );
    expect(frozen).toMatchObject({ code: 400, body: { category: 'VALIDATION_ERROR' } });
    expect(frozen.body.errors.map((e) => e.in).sort()).toEqual(['fieldType', 'type']);
  });

  it('batchApi.read and batchApi.archive; then the group can be archived', async () => {
    const read = await client.crm.properties.batchApi.read('deals', {
      archived: false,
      inputs: [{ name: 'first_calc' }, { name: 'second_calc' }, { name: 'dealname' }],
    });
    expect(read.results.map((p) => p.name)).toEqual(['first_calc', 'second_calc', 'dealname']);
    await client.crm.properties.batchApi.archive('deals', {
      inputs: [{ name: 'first_calc' }, { name: 'second_calc' }, { name: 'plain_one' }],
    });
    const left = await client.crm.properties.coreApi.getAll('deals');
    expect(left.results.every((p) => p.hubspotDefined)).toBe(true);
    await client.crm.properties.groupsApi.archive('deals', 'myapp');
    const gone = await failure(client.crm.properties.groupsApi.getByName('deals', 'myapp'));
    expect(gone).toMatchObject({ code: 404, body: { category: 'OBJECT_NOT_FOUND' } });
  });

  it('groupsApi.archive of a group that still holds properties is a 400', async () => {
    await client.crm.properties.groupsApi.create('contacts', { name: 'busy', label: 'Busy' });
    await client.crm.properties.coreApi.create('contacts', {
      name: 'in_busy',
      label: 'In busy',
      type: 'string' as never,
      fieldType: 'text' as never,
      groupName: 'busy',
    });
    const refused = await failure(client.crm.properties.groupsApi.archive('contacts', 'busy'));
    expect(refused).toMatchObject({ code: 400, body: { subCategory: 'PROPERTY_GROUP_NOT_EMPTY' } });
  });
});
