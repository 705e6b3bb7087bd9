import type Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * Limits writes whose events are committed while the `limits` read model cannot apply them (the
 * read-model file turned read-only: a real SQLITE_READONLY on every write) are answered from what
 * the commands decided, never 404/500. Each answer conforms to the spec and equals what the read
 * model shows once it healed.
 */
let t: TestApp;
let hubId: number;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
  hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  token = mintLimitsToken(t, { hubId, userId: 41, scopes: LIMITS_TEST_SCOPES });
});

afterAll(async () => {
  await t?.close();
});

// The read-model file turns read-only, then writable again.
const readOnly = () => t.app.get<Database.Database>(READ_MODEL_DB).pragma('query_only = ON');
const writable = () => t.app.get<Database.Database>(READ_MODEL_DB).pragma('query_only = OFF');

async function readinessWithin(status: number, deadlineMs: number) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const r = await t.inject({ method: 'GET', url: '/health/ready' });
    if (r.statusCode === status || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 50)); // polling readiness, bounded by the deadline
  }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
function call(method: Method, url: string, payload?: unknown) {
  return t.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
}

/** A success answer that conforms to `specPath` of `file`. */
function ok(r: LightMyRequestResponse, status: number, file: string, method: Method, specPath: string) {
  expect({ status: r.statusCode, body: r.body.slice(0, 500) }).toMatchObject({ status });
  const body = r.json();
  expect(validateResponse(file, method, specPath, body, String(status))).toEqual([]);
  return body;
}

const PROPS = 'v3/properties.json';
const SCHEMAS = 'v3/schemas.json';
const text = (name: string) => ({
  name,
  label: `Text ${name}`,
  type: 'string',
  fieldType: 'text',
  groupName: 'contactinformation',
});

it('answers every limits write from the decided state while the read model fails, then equals the healed read model', async () => {
  readOnly();

  ok(
    await call('POST', '/crm/v3/properties/contacts', text('alpha')),
    201,
    PROPS,
    'POST',
    '/crm/v3/properties/{objectType}',
  );
  const patched = ok(
    await call('PATCH', '/crm/v3/properties/contacts/alpha', { label: 'Alpha renamed', description: 'Changed' }),
    200,
    PROPS,
    'PATCH',
    '/crm/v3/properties/{objectType}/{propertyName}',
  );
  expect(patched).toMatchObject({ name: 'alpha', label: 'Alpha renamed', description: 'Changed' });

  const batch = ok(
    await call('POST', '/crm/v3/properties/contacts/batch/create', {
      inputs: [text('bravo'), text('charlie'), text('alpha')],
    }),
    207,
    PROPS,
    'POST',
    '/crm/v3/properties/{objectType}/batch/create',
  );
  expect(batch.results.map((p: { name: string }) => p.name)).toEqual(['bravo', 'charlie']);
  expect(batch.numErrors).toBe(1);
  const archived = await call('POST', '/crm/v3/properties/contacts/batch/archive', { inputs: [{ name: 'charlie' }] });
  expect(archived.statusCode).toBe(204);

  const group = ok(
    await call('POST', '/crm/v3/properties/contacts/groups', { name: 'kept', label: 'Kept', displayOrder: 4 }),
    201,
    PROPS,
    'POST',
    '/crm/v3/properties/{objectType}/groups',
  );
  expect(group).toEqual({ name: 'kept', label: 'Kept', displayOrder: 4, archived: false });
  const groupPatched = ok(
    await call('PATCH', '/crm/v3/properties/contacts/groups/kept', { label: 'Kept and renamed' }),
    200,
    PROPS,
    'PATCH',
    '/crm/v3/properties/{objectType}/groups/{groupName}',
  );
  expect(groupPatched).toEqual({ ...group, label: 'Kept and renamed' });
  ok(
    await call('POST', '/crm/v3/properties/contacts/groups', { name: 'dropped', label: 'Dropped' }),
    201,
    PROPS,
    'POST',
    '/crm/v3/properties/{objectType}/groups',
  );
  expect((await call('DELETE', '/crm/v3/properties/contacts/groups/dropped')).statusCode).toBe(204);

  const schema = ok(
    await call('POST', '/crm/v3/schemas', {
      name: 'cars',
      labels: { singular: 'Car', plural: 'Cars' },
      primaryDisplayProperty: 'title',
      requiredProperties: ['title'],
      properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
      associatedObjects: ['CONTACT'],
    }),
    201,
    SCHEMAS,
    'POST',
    '/crm-object-schemas/v3/schemas',
  );
  expect(schema).toMatchObject({ name: 'cars', objectTypeId: expect.stringMatching(/^2-\d+$/) });
  const schemaPatched = ok(
    await call('PATCH', '/crm/v3/schemas/cars', {
      description: 'Vehicles',
      labels: { singular: 'Auto', plural: 'Autos' },
    }),
    200,
    SCHEMAS,
    'PATCH',
    '/crm-object-schemas/v3/schemas/{objectType}',
  );
  expect(schemaPatched).toMatchObject({ description: 'Vehicles', labels: { singular: 'Auto', plural: 'Autos' } });
  const pair = { fromObjectTypeId: schema.objectTypeId, toObjectTypeId: '0-1' };
  const association = ok(
    await call('POST', '/crm/v3/schemas/cars/associations', { ...pair, name: 'driver' }),
    201,
    SCHEMAS,
    'POST',
    '/crm-object-schemas/v3/schemas/{objectType}/associations',
  );
  const temporary = ok(
    await call('POST', '/crm/v3/schemas/cars/associations', { ...pair, name: 'passenger' }),
    201,
    SCHEMAS,
    'POST',
    '/crm-object-schemas/v3/schemas/{objectType}/associations',
  );
  expect((await call('DELETE', `/crm/v3/schemas/cars/associations/${temporary.id}`)).statusCode).toBe(204);

  // Last: its answer counts everything above.
  const limits = await t.admin('PUT', `/admin/v1/accounts/${hubId}/limits`, { customProperties: 500 });
  expect(limits.statusCode).toBe(200);
  expect(limits.json()).toMatchObject({
    overrides: { customProperties: 500 },
    effectiveLimits: { customProperties: 500 },
    usage: {
      customObjectTypes: 1,
      customPropertiesByObjectType: { '0-1': 2, [schema.objectTypeId]: 1 },
      associationLabelsByPair: { [`${schema.objectTypeId}:0-1`]: 1 },
    },
  });

  // None of it reached the read model: readiness says so.
  const ready = await t.inject({ method: 'GET', url: '/health/ready' });
  expect(ready.statusCode).toBe(503);
  expect(JSON.stringify(ready.json())).toContain('limits');

  writable();
  expect((await readinessWithin(200, 15_000)).statusCode).toBe(200);

  // What the writes answered is what the healed read model holds.
  expect((await t.admin('GET', `/admin/v1/accounts/${hubId}/limits`)).json()).toEqual(limits.json());
  expect((await call('GET', '/crm/v3/properties/contacts/alpha')).json()).toEqual(patched);
  expect((await call('GET', '/crm/v3/properties/contacts/bravo')).json()).toEqual(batch.results[0]);
  expect((await call('GET', '/crm/v3/properties/contacts/charlie')).statusCode).toBe(404);
  expect((await call('GET', '/crm/v3/properties/contacts/charlie?archived=true')).json()).toMatchObject({
    ...batch.results[1],
    archived: true,
    updatedAt: expect.any(String),
    archivedAt: expect.any(String),
  });
  expect((await call('GET', '/crm/v3/properties/contacts/groups/kept')).json()).toEqual(groupPatched);
  expect((await call('GET', '/crm/v3/properties/contacts/groups/dropped')).statusCode).toBe(404);
  const healedSchema = (await call('GET', '/crm/v3/schemas/cars')).json();
  // The PATCH answers an ObjectTypeDefinition: the schema's fields plus the account.
  const { portalId, ...definition } = schemaPatched;
  expect(portalId).toBe(hubId);
  expect(healedSchema).toMatchObject(definition);
  expect(healedSchema.associations).toContainEqual(association);
  expect(healedSchema.associations.map((a: { id: string }) => a.id)).not.toContain(temporary.id);
  expect(schema).toEqual({
    ...healedSchema,
    labels: { singular: 'Car', plural: 'Cars' },
    description: schema.description,
    updatedAt: schema.updatedAt,
    associations: schema.associations,
  });
}, 60_000);
