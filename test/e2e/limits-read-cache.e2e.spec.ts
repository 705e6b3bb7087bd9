import type Database from 'better-sqlite3';
import { LimitsReadCache } from '../../src/crm-schema/application/limits-read-cache';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { LIMITS_PROJECTION } from '../../src/crm-schema/projections/limits.projection';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

const TYPES = '/crm/v3/limits/custom-object-types';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
});

afterAll(async () => {
  await t?.close();
});

const schemaBody = (name: string) => ({
  name,
  labels: { singular: `${name} item`, plural: `${name} items` },
  primaryDisplayProperty: 'title',
  requiredProperties: ['title'],
  properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
  associatedObjects: ['CONTACT'],
});

async function account(): Promise<{
  hub: number;
  call: (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => ReturnType<TestApp['inject']>;
}> {
  const hub = (await createAccount(t, { tier: 'enterprise' })).hubId;
  const token = mintLimitsToken(t, { hubId: hub, userId: 31, scopes: LIMITS_TEST_SCOPES });
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
    t.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return { hub, call };
}

const types = async (call: Awaited<ReturnType<typeof account>>['call']) => {
  const r = await call('GET', TYPES);
  expect(r.statusCode).toBe(200);
  return r.json() as { limit: number; usage: number; percentage: number };
};

describe('limits GET answered from the figures kept per account', () => {
  it('answers from memory once read: a row changed behind the projection is not re-read', async () => {
    const { hub, call } = await account();
    expect(await types(call)).toEqual({ limit: 10, usage: 0, percentage: 0 });
    // Only the projection writes these rows; this write behind its back shows the answer is the kept one.
    t.app
      .get<Database.Database>(READ_MODEL_DB)
      .prepare('INSERT INTO limits_account_usage (hub_id, custom_object_types) VALUES (?, 4)')
      .run(hub);
    expect(await types(call)).toEqual({ limit: 10, usage: 0, percentage: 0 });
    t.app.get(LimitsReadCache).forget(hub);
    expect(await types(call)).toEqual({ limit: 10, usage: 4, percentage: 40 });
  });

  it('a GET right after a command was answered sees what the command changed', async () => {
    const { hub, call } = await account();
    expect(await types(call)).toEqual({ limit: 10, usage: 0, percentage: 0 });

    expect((await t.admin('PUT', `/admin/v1/accounts/${hub}/limits`, { customObjectTypes: 4 })).statusCode).toBe(200);
    expect(await types(call)).toEqual({ limit: 4, usage: 0, percentage: 0 });

    expect((await call('POST', '/crm/v3/schemas', schemaBody('cars'))).statusCode).toBe(201);
    expect(await types(call)).toEqual({ limit: 4, usage: 1, percentage: 25 });
    expect((await call('POST', '/crm/v3/schemas', schemaBody('boats'))).statusCode).toBe(201);
    expect(await types(call)).toEqual({ limit: 4, usage: 2, percentage: 50 });

    expect((await call('DELETE', '/crm/v3/schemas/boats')).statusCode).toBe(204);
    expect(await types(call)).toEqual({ limit: 4, usage: 1, percentage: 25 });

    expect((await t.admin('PUT', `/admin/v1/accounts/${hub}/limits`, { customObjectTypes: null })).statusCode).toBe(
      200,
    );
    expect(await types(call)).toEqual({ limit: 10, usage: 1, percentage: 10 });
    const admin = await t.admin('GET', `/admin/v1/accounts/${hub}/limits`);
    expect(admin.json()).toMatchObject({ overrides: {}, usage: { customObjectTypes: 1 } });
  });

  it("a command on one account leaves the others' figures kept", async () => {
    const a = await account();
    const b = await account();
    await types(a.call);
    await types(b.call);
    const cache = t.app.get(LimitsReadCache);
    const forgot = jest.spyOn(cache, 'forget');
    await t.admin('PUT', `/admin/v1/accounts/${a.hub}/limits`, { customObjectTypes: 2 });
    expect(forgot.mock.calls.map(([hub]) => hub)).toContain(a.hub);
    expect(forgot.mock.calls.map(([hub]) => hub)).not.toContain(b.hub);
    forgot.mockRestore();
    expect(await types(a.call)).toEqual({ limit: 2, usage: 0, percentage: 0 });
  });

  it('a rebuild of the read model forgets every account', async () => {
    const { call } = await account();
    await types(call);
    const cache = t.app.get(LimitsReadCache);
    expect(cache.size).toBeGreaterThan(0);
    await t.app.get(ProjectionRunner).rebuild(LIMITS_PROJECTION);
    expect(cache.size).toBe(0);
    expect(await types(call)).toEqual({ limit: 10, usage: 0, percentage: 0 });
  });
});
