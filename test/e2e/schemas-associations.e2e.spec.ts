import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { LIMITS_PROJECTION, LIMITS_TABLES } from '../../src/crm-schema/projections/limits.projection';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * Schemas beyond create/read/archive: PATCH, batch/read, association definitions, the include
 * flags, and the association-label limits they feed (v3 and the dated paths, each answer checked
 * against the spec file of its version).
 */
let t: TestApp;
let enterprise: number;
let professional: number;
let free: number;
let other: number;
let entToken: string;
let proToken: string;
let freeToken: string;
let otherToken: string;

const V3 = '/crm/v3/schemas';
const SPEC_V3 = 'v3/schemas.json';
const LABELS = '/crm/v3/limits/associations/labels';

type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
function call(token: string, method: Method, url: string, payload?: unknown) {
  return t.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
}

/** A success answer that conforms to `specPath` of `file`. */
function ok(r: LightMyRequestResponse, status: number, file: string, method: Method, specPath: string) {
  expect({ status: r.statusCode, body: r.body.slice(0, 500) }).toMatchObject({ status });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json();
  expect(validateResponse(file, method, specPath, body, String(status))).toEqual([]);
  return body;
}

function expectError(r: LightMyRequestResponse, status: number, category: string) {
  expect({ status: r.statusCode, body: r.json() }).toMatchObject({ status, body: { category } });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json();
  expect(body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  expect(typeof body.message).toBe('string');
  return body;
}

const schemaBody = (name: string, associatedObjects: string[] = ['CONTACT']) => ({
  name,
  labels: { singular: `${name} item`, plural: `${name} items` },
  primaryDisplayProperty: 'title',
  requiredProperties: ['title'],
  properties: [
    { name: 'title', label: 'Title', type: 'string', fieldType: 'text' },
    { name: 'price', label: 'Price', type: 'number', fieldType: 'number' },
    { name: 'color', label: 'Color', type: 'string', fieldType: 'text' },
  ],
  associatedObjects,
});

async function createSchema(token: string, name: string, associatedObjects?: string[]) {
  const r = await call(token, 'POST', V3, schemaBody(name, associatedObjects));
  expect(r.statusCode).toBe(201);
  return r.json() as { objectTypeId: string; fullyQualifiedName: string };
}

const SCHEMA_ITEM = '/crm-object-schemas/v3/schemas/{objectType}';
const ASSOCIATIONS = '/crm-object-schemas/v3/schemas/{objectType}/associations';

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
  enterprise = (await createAccount(t, { tier: 'enterprise' })).hubId;
  professional = (await createAccount(t, { tier: 'professional' })).hubId;
  free = (await createAccount(t, { tier: 'free' })).hubId;
  other = (await createAccount(t, { tier: 'enterprise' })).hubId;
  entToken = mintLimitsToken(t, { hubId: enterprise, userId: 31, scopes: LIMITS_TEST_SCOPES });
  proToken = mintLimitsToken(t, { hubId: professional, userId: 32, scopes: LIMITS_TEST_SCOPES });
  freeToken = mintLimitsToken(t, { hubId: free, userId: 33, scopes: LIMITS_TEST_SCOPES });
  otherToken = mintLimitsToken(t, { hubId: other, userId: 34, scopes: LIMITS_TEST_SCOPES });
  await createSchema(entToken, 'cars'); // 2-1, associated with contacts (unnamed)
  await createSchema(entToken, 'bikes', []); // 2-2
  await createSchema(otherToken, 'boats'); // another account's 2-1
});

afterAll(async () => {
  await t?.close();
});

describe('PATCH /crm/v3/schemas/{objectType}', () => {
  it('changes labels, description and the property lists; answers ObjectTypeDefinition; GET and the limits follow', async () => {
    const before = (await call(entToken, 'GET', `${V3}/cars`)).json();
    t.clock.advance(60_000);
    const r = await call(entToken, 'PATCH', `${V3}/cars`, {
      labels: { singular: 'Car', plural: 'Cars' },
      description: 'Vehicles we sell',
      primaryDisplayProperty: 'color',
      secondaryDisplayProperties: ['price'],
      searchableProperties: ['title', 'color'],
      requiredProperties: ['title', 'price'],
    });
    const body = ok(r, 200, SPEC_V3, 'PATCH', SCHEMA_ITEM);
    expect(body).toEqual({
      id: '1',
      objectTypeId: '2-1',
      fullyQualifiedName: `p${enterprise}_cars`,
      name: 'cars',
      portalId: enterprise,
      labels: { singular: 'Car', plural: 'Cars' },
      description: 'Vehicles we sell',
      primaryDisplayProperty: 'color',
      secondaryDisplayProperties: ['price'],
      searchableProperties: ['title', 'color'],
      requiredProperties: ['title', 'price'],
      archived: false,
      createdAt: before.createdAt,
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    const read = ok(await call(entToken, 'GET', `${V3}/2-1`), 200, SPEC_V3, 'GET', SCHEMA_ITEM);
    expect(read).toMatchObject({
      labels: { singular: 'Car', plural: 'Cars' },
      description: 'Vehicles we sell',
      primaryDisplayProperty: 'color',
      requiredProperties: ['title', 'price'],
      updatedByUserId: 31,
      createdAt: before.createdAt,
    });
    expect(read.properties).toEqual(before.properties);
    expect(read.associations).toEqual(before.associations);
    // the custom-properties limits carry the new labels
    const custom = (await call(entToken, 'GET', '/crm/v3/limits/custom-properties')).json();
    expect(custom.byObjectType).toContainEqual(
      expect.objectContaining({ objectTypeId: '2-1', singularLabel: 'Car', pluralLabel: 'Cars' }),
    );
  });

  it('clearDescription removes the description; a property added later can be displayed; an empty patch changes nothing', async () => {
    const cleared = ok(
      await call(entToken, 'PATCH', `${V3}/p${enterprise}_cars`, { clearDescription: true }),
      200,
      SPEC_V3,
      'PATCH',
      SCHEMA_ITEM,
    );
    expect(cleared).not.toHaveProperty('description');

    const added = await call(entToken, 'POST', '/crm/v3/properties/2-1', {
      name: 'vin',
      label: 'VIN',
      type: 'string',
      fieldType: 'text',
      groupName: 'cars_information',
    });
    expect(added.statusCode).toBe(201);
    const r = await call(entToken, 'PATCH', `${V3}/cars`, { searchableProperties: ['vin', 'vin', 'title'] });
    expect(ok(r, 200, SPEC_V3, 'PATCH', SCHEMA_ITEM).searchableProperties).toEqual(['vin', 'title']);

    const stamp = (await call(entToken, 'GET', `${V3}/cars`)).json().updatedAt;
    t.clock.advance(60_000);
    const same = ok(await call(entToken, 'PATCH', `${V3}/cars`, {}), 200, SPEC_V3, 'PATCH', SCHEMA_ITEM);
    expect(same.updatedAt).toBe(stamp);
  });

  it.each(['2026-03', '2026-09'] as const)(
    'at %s clearDescription is required, and the answer carries allowsSensitiveProperties',
    async (version) => {
      const path = `/crm-object-schemas/${version}/schemas/cars`;
      const missing = expectError(await call(entToken, 'PATCH', path, { description: 'x' }), 400, 'VALIDATION_ERROR');
      expect(missing.errors).toContainEqual(expect.objectContaining({ in: 'clearDescription' }));
      const body = ok(
        await call(entToken, 'PATCH', path, { clearDescription: false, description: `at ${version}` }),
        200,
        `${version}/schemas.json`,
        'PATCH',
        `/crm-object-schemas/${version}/schemas/{objectType}`,
      );
      expect(body).toMatchObject({ description: `at ${version}`, allowsSensitiveProperties: false });
    },
  );

  it('bad input: HubSpot errors, nothing changed', async () => {
    const before = (await call(entToken, 'GET', `${V3}/cars`)).json();
    expectError(await call(entToken, 'PATCH', `${V3}/nope`, { description: 'x' }), 404, 'OBJECT_NOT_FOUND');
    expectError(await call(entToken, 'PATCH', `${V3}/contacts`, { description: 'x' }), 404, 'OBJECT_NOT_FOUND');
    expectError(
      await call(otherToken, 'PATCH', `${V3}/p${enterprise}_cars`, { description: 'x' }),
      404,
      'OBJECT_NOT_FOUND',
    );
    const unknownProperty = expectError(
      await call(entToken, 'PATCH', `${V3}/cars`, {
        description: 'partial?',
        requiredProperties: ['title', 'wheels'],
        primaryDisplayProperty: 'nope',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(unknownProperty.errors.map((e: { in: string }) => e.in)).toEqual([
      'primaryDisplayProperty',
      'requiredProperties[1]',
    ]);
    const both = expectError(
      await call(entToken, 'PATCH', `${V3}/cars`, { description: 'x', clearDescription: true }),
      400,
      'VALIDATION_ERROR',
    );
    expect(both.errors).toContainEqual(expect.objectContaining({ in: 'clearDescription' }));
    for (const [flag, value] of [
      ['allowsSensitiveProperties', true],
      ['restorable', true],
    ] as const) {
      const refused = expectError(
        await call(entToken, 'PATCH', `${V3}/cars`, { [flag]: value }),
        400,
        'VALIDATION_ERROR',
      );
      expect(refused.errors).toContainEqual(expect.objectContaining({ in: flag, code: 'UNSUPPORTED' }));
    }
    for (const bad of [
      { labels: 'Car' },
      { labels: { singular: 'Car' } },
      { labels: { singular: ' ', plural: 'Cars' } },
      { requiredProperties: 'title' },
      { searchableProperties: [1, 2] },
      { description: 42 },
      { clearDescription: 'yes' },
      { primaryDisplayProperty: '' },
      { secondaryDisplayProperties: Array.from({ length: 101 }, (_, i) => `p${i}`) },
      [],
      'not json',
    ]) {
      const r = await call(entToken, 'PATCH', `${V3}/cars`, bad);
      expect([r.statusCode, r.json().category]).toEqual([400, expect.stringMatching(/VALIDATION_ERROR|INVALID/)]);
    }
    const after = (await call(entToken, 'GET', `${V3}/cars`)).json();
    expect(after).toEqual(before);
  });
});

describe('include flags on GET and list', () => {
  const SCHEMAS = '/crm-object-schemas/v3/schemas';

  it('default true; false leaves out properties, associations or the audit fields, at every version', async () => {
    const full = ok(await call(entToken, 'GET', `${V3}/cars`), 200, SPEC_V3, 'GET', SCHEMA_ITEM);
    expect(full.properties.length).toBeGreaterThan(0);
    expect(full.associations.length).toBeGreaterThan(0);
    expect(full).toHaveProperty('createdAt');

    const q = '?includePropertyDefinitions=false&includeAssociationDefinitions=false&includeAuditMetadata=false';
    for (const version of ['v3', '2026-03', '2026-09'] as const) {
      const base = version === 'v3' ? SCHEMAS : `/crm-object-schemas/${version}/schemas`;
      const file = version === 'v3' ? SPEC_V3 : `${version}/schemas.json`;
      const bare = ok(await call(entToken, 'GET', `${base}/cars${q}`), 200, file, 'GET', `${base}/{objectType}`);
      expect(bare).toMatchObject({ objectTypeId: '2-1', properties: [], associations: [] });
      for (const audit of ['createdAt', 'updatedAt', 'createdByUserId', 'updatedByUserId']) {
        expect(bare).not.toHaveProperty(audit);
      }
      const list = ok(await call(entToken, 'GET', `${base}${q}`), 200, file, 'GET', base);
      expect(list.results.map((s: { name: string }) => s.name)).toEqual(['cars', 'bikes']);
      expect(list.results.every((s: { properties: unknown[] }) => s.properties.length === 0)).toBe(true);
    }
    const onlyAssociations = (await call(entToken, 'GET', `${V3}/cars?includePropertyDefinitions=false`)).json();
    expect(onlyAssociations).toMatchObject({
      properties: [],
      associations: full.associations,
      createdAt: full.createdAt,
    });
    const noAudit = (await call(entToken, 'GET', `${V3}/cars?includeAuditMetadata=false`)).json();
    expect(noAudit.associations[0]).not.toHaveProperty('createdAt');
    expect(noAudit.properties).toEqual(full.properties);
  });

  it('a flag that is not a boolean is 400', async () => {
    for (const url of [
      `${V3}/cars?includePropertyDefinitions=maybe`,
      `${V3}?includeAuditMetadata=1`,
      `${V3}?includeAssociationDefinitions=true&includeAssociationDefinitions=false`,
    ]) {
      expectError(await call(entToken, 'GET', url), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('POST /crm/v3/schemas/batch/read', () => {
  const BATCH = '/crm-object-schemas/v3/schemas/batch/read';
  const flags = { includeAssociationDefinitions: true, includeAuditMetadata: true, includePropertyDefinitions: true };

  it('reads by objectTypeId, fully qualified name and name, once each, with the flags of the body', async () => {
    const r = await call(entToken, 'POST', BATCH, { ...flags, inputs: ['2-2', `p${enterprise}_cars`, 'bikes'] });
    const body = ok(r, 200, SPEC_V3, 'POST', BATCH);
    expect(body.results.map((s: { objectTypeId: string }) => s.objectTypeId)).toEqual(['2-2', '2-1']);
    expect(body.results[1].properties.length).toBeGreaterThan(0);
    const bare = ok(
      await call(entToken, 'POST', `${V3}/batch/read`, {
        includeAssociationDefinitions: false,
        includeAuditMetadata: false,
        includePropertyDefinitions: false,
        inputs: ['cars'],
      }),
      200,
      SPEC_V3,
      'POST',
      BATCH,
    );
    expect(bare.results).toEqual([expect.objectContaining({ name: 'cars', properties: [], associations: [] })]);
    expect(bare.results[0]).not.toHaveProperty('createdAt');
    const empty = ok(await call(entToken, 'POST', BATCH, { ...flags, inputs: [] }), 200, SPEC_V3, 'POST', BATCH);
    expect(empty).toEqual({ results: [] });
    for (const version of ['2026-03', '2026-09']) {
      const path = `/crm-object-schemas/${version}/schemas/batch/read`;
      const dated = ok(
        await call(entToken, 'POST', path, { ...flags, inputs: ['cars'] }),
        200,
        `${version}/schemas.json`,
        'POST',
        path,
      );
      expect(dated.results[0]).toMatchObject({ name: 'cars', allowsSensitiveProperties: false });
    }
  });

  it('bad input: unknown or foreign types (404 naming each), oversize, missing flags, wrong shapes', async () => {
    const unknown = expectError(
      await call(entToken, 'POST', BATCH, { ...flags, inputs: ['cars', 'nope', `p${other}_boats`, 'contacts'] }),
      404,
      'OBJECT_NOT_FOUND',
    );
    expect(unknown.errors.map((e: { in: string }) => e.in)).toEqual(['inputs[1]', 'inputs[2]', 'inputs[3]']);
    const oversize = expectError(
      await call(entToken, 'POST', BATCH, { ...flags, inputs: Array.from({ length: 1000 }, () => 'cars') }),
      400,
      'VALIDATION_ERROR',
    );
    expect(oversize.errors).toContainEqual(expect.objectContaining({ in: 'inputs' }));
    const noFlags = expectError(await call(entToken, 'POST', BATCH, { inputs: ['cars'] }), 400, 'VALIDATION_ERROR');
    expect(noFlags.errors.map((e: { in: string }) => e.in).sort()).toEqual([
      'includeAssociationDefinitions',
      'includeAuditMetadata',
      'includePropertyDefinitions',
    ]);
    for (const bad of [
      { ...flags, inputs: 'cars' },
      { ...flags, inputs: [1] },
      { ...flags, inputs: [''] },
      { ...flags },
      '{',
      [],
    ]) {
      expectError(await call(entToken, 'POST', BATCH, bad), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('association definitions', () => {
  it('POST 201 AssociationDefinition (named, to a standard or a custom type); GET lists it; DELETE 204 by id or name', async () => {
    const driver = ok(
      await call(entToken, 'POST', `${V3}/cars/associations`, {
        fromObjectTypeId: '2-1',
        toObjectTypeId: 'contact',
        name: 'car_to_driver',
      }),
      201,
      SPEC_V3,
      'POST',
      ASSOCIATIONS,
    );
    expect(driver).toEqual({
      id: '2',
      fromObjectTypeId: '2-1',
      toObjectTypeId: '0-1',
      name: 'car_to_driver',
      createdAt: new Date(t.clock.now()).toISOString(),
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    const toBikes = ok(
      await call(entToken, 'POST', `/crm-object-schemas/v3/schemas/p${enterprise}_cars/associations`, {
        fromObjectTypeId: 'cars',
        toObjectTypeId: `p${enterprise}_bikes`,
      }),
      201,
      SPEC_V3,
      'POST',
      ASSOCIATIONS,
    );
    expect(toBikes).toMatchObject({ id: '3', fromObjectTypeId: '2-1', toObjectTypeId: '2-2' });
    expect(toBikes).not.toHaveProperty('name');
    const dated = ok(
      await call(entToken, 'POST', '/crm-object-schemas/2026-09/schemas/cars/associations', {
        fromObjectTypeId: '2-1',
        toObjectTypeId: '0-2',
        name: 'car_to_dealer',
      }),
      201,
      '2026-09/schemas.json',
      'POST',
      '/crm-object-schemas/2026-09/schemas/{objectType}/associations',
    );
    expect(dated).toMatchObject({ id: '4', toObjectTypeId: '0-2' });

    const schema = (await call(entToken, 'GET', `${V3}/cars`)).json();
    expect(schema.associations.map((a: { id: string }) => a.id)).toEqual(['1', '2', '3', '4']);

    const del = await call(entToken, 'DELETE', `${V3}/cars/associations/4`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectError(await call(entToken, 'DELETE', `${V3}/cars/associations/4`), 404, 'OBJECT_NOT_FOUND');
    const temp = await call(entToken, 'POST', '/crm-object-schemas/2026-03/schemas/cars/associations', {
      fromObjectTypeId: '2-1',
      toObjectTypeId: '0-3',
      name: 'car_to_deal',
    });
    expect(temp.statusCode).toBe(201);
    expect(temp.json().id).toBe('5'); // ids are never reused
    expect(
      (await call(entToken, 'DELETE', '/crm-object-schemas/2026-03/schemas/cars/associations/CAR_TO_DEAL')).statusCode,
    ).toBe(204);
    expect((await call(entToken, 'GET', `${V3}/cars`)).json().associations.map((a: { id: string }) => a.id)).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('bad input: unknown, foreign or mismatched types, itself, duplicates, wrong shapes; nothing recorded', async () => {
    const store = t.app.get<EventStore>(EVENT_STORE);
    const stream = `limits.account-${enterprise}`;
    const countEvents = async () => (await store.readStream(stream)).length;
    const before = await countEvents();
    const post = (objectType: string, body: unknown) =>
      call(entToken, 'POST', `${V3}/${objectType}/associations`, body);
    expectError(await post('nope', { fromObjectTypeId: 'nope', toObjectTypeId: '0-1' }), 404, 'OBJECT_NOT_FOUND');
    expectError(await post('contacts', { fromObjectTypeId: '0-1', toObjectTypeId: '2-1' }), 404, 'OBJECT_NOT_FOUND');
    const cases: Array<[unknown, string, string]> = [
      [{ fromObjectTypeId: '2-1', toObjectTypeId: 'unicorns' }, 'toObjectTypeId', 'INVALID_OBJECT_TYPE'],
      [{ fromObjectTypeId: '2-1', toObjectTypeId: `p${other}_boats` }, 'toObjectTypeId', 'INVALID_OBJECT_TYPE'],
      [{ fromObjectTypeId: '2-2', toObjectTypeId: '0-1' }, 'fromObjectTypeId', 'INVALID'],
      [{ fromObjectTypeId: '2-1', toObjectTypeId: 'cars' }, 'toObjectTypeId', 'UNSUPPORTED'],
    ];
    for (const [body, field, code] of cases) {
      const e = expectError(await post('cars', body), 400, 'VALIDATION_ERROR');
      expect(e.errors).toEqual([expect.objectContaining({ in: field, code })]);
    }
    // a label name is unique in the account; a pair has one unnamed (default) definition
    expectError(
      await post('bikes', { fromObjectTypeId: '2-2', toObjectTypeId: '0-1', name: 'CAR_TO_DRIVER' }),
      409,
      'CONFLICT',
    );
    expectError(await post('cars', { fromObjectTypeId: '2-1', toObjectTypeId: '0-1' }), 409, 'CONFLICT');
    for (const bad of [
      {},
      { fromObjectTypeId: '2-1' },
      { fromObjectTypeId: 1, toObjectTypeId: '0-1' },
      { fromObjectTypeId: '2-1', toObjectTypeId: '0-1', name: '' },
      { fromObjectTypeId: '2-1', toObjectTypeId: '0-1', name: 'x'.repeat(101) },
      { fromObjectTypeId: '2-1', toObjectTypeId: '0-1', name: ['a'] },
      'nope',
    ]) {
      expectError(await post('cars', bad), 400, 'VALIDATION_ERROR');
    }
    expectError(await call(entToken, 'DELETE', `${V3}/nope/associations/1`), 404, 'OBJECT_NOT_FOUND');
    expectError(await call(entToken, 'DELETE', `${V3}/bikes/associations/2`), 404, 'OBJECT_NOT_FOUND'); // cars' own
    expectError(await call(entToken, 'DELETE', `${V3}/cars/associations/999`), 404, 'OBJECT_NOT_FOUND');
    expectError(await call(entToken, 'DELETE', `${V3}/cars/associations/${'9'.repeat(300)}`), 400, 'VALIDATION_ERROR');
    expect(await countEvents()).toBe(before);
  });
});

describe('GET /crm/v3/limits/associations/labels', () => {
  it('one entry per pair with a definition: the named ones are its labels, against the tier ceiling', async () => {
    const body = ok(await call(entToken, 'GET', LABELS), 200, 'limitsTracking.json', 'GET', LABELS);
    expect(body).toEqual({
      results: [
        {
          fromObjectType: { objectTypeId: '2-1', singularLabel: 'Car', pluralLabel: 'Cars' },
          toObjectType: { objectTypeId: '0-1', singularLabel: 'Contact', pluralLabel: 'Contacts' },
          limit: 50,
          usage: 1,
          percentage: 2,
          allLabels: ['car_to_driver'],
        },
        {
          fromObjectType: { objectTypeId: '2-1', singularLabel: 'Car', pluralLabel: 'Cars' },
          toObjectType: { objectTypeId: '2-2', singularLabel: 'bikes item', pluralLabel: 'bikes items' },
          limit: 50,
          usage: 0,
          percentage: 0,
          allLabels: [],
        },
      ],
    });
    const filtered = ok(
      await call(entToken, 'GET', `${LABELS}?fromObjectTypeId=cars&toObjectTypeId=contact`),
      200,
      'limitsTracking.json',
      'GET',
      LABELS,
    );
    expect(
      filtered.results.map((r: { toObjectType: { objectTypeId: string } }) => r.toObjectType.objectTypeId),
    ).toEqual(['0-1']);
    expect((await call(entToken, 'GET', `${LABELS}?toObjectTypeId=2-2`)).json().results).toHaveLength(1);
    expect((await call(entToken, 'GET', `${LABELS}?fromObjectTypeId=0-1`)).json()).toEqual({ results: [] });
    for (const version of ['2026-03', '2026-09']) {
      const path = `/crm/limits/${version}/associations/labels`;
      const dated = ok(await call(entToken, 'GET', path), 200, `${version}/limitsTracking.json`, 'GET', path);
      expect(dated).toEqual(body);
    }
  });

  it('bad input and scopes: unknown filter 400, foreign type 400, no accepted scope 403; other accounts see only theirs', async () => {
    expectError(await call(entToken, 'GET', `${LABELS}?fromObjectTypeId=unicorns`), 400, 'VALIDATION_ERROR');
    expectError(await call(entToken, 'GET', `${LABELS}?toObjectTypeId=p${other}_boats`), 400, 'VALIDATION_ERROR');
    expectError(
      await call(entToken, 'GET', `${LABELS}?fromObjectTypeId=a&fromObjectTypeId=b`),
      400,
      'VALIDATION_ERROR',
    );
    const noScope = mintLimitsToken(t, { hubId: enterprise, scopes: ['crm.schemas.custom.read'] });
    expectError(await call(noScope, 'GET', LABELS), 403, 'MISSING_SCOPES');
    const theirs = (await call(otherToken, 'GET', LABELS)).json();
    expect(theirs.results).toEqual([
      expect.objectContaining({
        usage: 0,
        fromObjectType: expect.objectContaining({ objectTypeId: '2-1', pluralLabel: 'boats items' }),
      }),
    ]);
    // the pipelines and record-association limits are not built: 404, HubSpot's shape (the records
    // limits are the CRM records module's: records-api.e2e.spec.ts)
    for (const path of [
      'pipelines',
      'associations/records/from',
      'associations/records/0-1/to',
      'associations/records/0-1/0-2',
    ]) {
      expectError(await call(entToken, 'GET', `/crm/v3/limits/${path}`), 404, 'OBJECT_NOT_FOUND');
    }
  });

  it('archiving the target type takes its pair out of the count; archiving the source too', async () => {
    await createSchema(entToken, 'trucks', []);
    const link = await call(entToken, 'POST', `${V3}/trucks/associations`, {
      fromObjectTypeId: 'trucks',
      toObjectTypeId: 'bikes',
      name: 'truck_carries_bike',
    });
    expect(link.statusCode).toBe(201);
    const pairs = async () =>
      (await call(entToken, 'GET', LABELS))
        .json()
        .results.map(
          (r: { fromObjectType: { objectTypeId: string }; toObjectType: { objectTypeId: string } }) =>
            `${r.fromObjectType.objectTypeId}>${r.toObjectType.objectTypeId}`,
        );
    expect(await pairs()).toEqual(['2-1>0-1', '2-1>2-2', '2-3>2-2']);
    expect((await call(entToken, 'DELETE', `${V3}/bikes`)).statusCode).toBe(204);
    expect(await pairs()).toEqual(['2-1>0-1']);
    // an archived type cannot be a new target either
    const refused = await call(entToken, 'POST', `${V3}/trucks/associations`, {
      fromObjectTypeId: '2-3',
      toObjectTypeId: '2-2',
    });
    expectError(refused, 400, 'VALIDATION_ERROR');
    // the label name of the inactive pair is free again
    const reuse = await call(entToken, 'POST', `${V3}/trucks/associations`, {
      fromObjectTypeId: '2-3',
      toObjectTypeId: '0-1',
      name: 'truck_carries_bike',
    });
    expect(reuse.statusCode).toBe(201);
    expect((await call(entToken, 'DELETE', `${V3}/trucks`)).statusCode).toBe(204);
    expect(await pairs()).toEqual(['2-1>0-1']);
  });
});

describe('association-label ceiling', () => {
  it('tier defaults: free and starter have no labels, professional 50 (unnamed default associations are not labels)', async () => {
    await t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { customObjectTypes: 1 });
    await createSchema(freeToken, 'pets'); // its unnamed association with contacts is not a label
    const refused = expectError(
      await call(freeToken, 'POST', `${V3}/pets/associations`, {
        fromObjectTypeId: 'pets',
        toObjectTypeId: '0-1',
        name: 'owner',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(refused.subCategory).toBe('LIMITS.ASSOCIATION_LABELS_LIMIT_EXCEEDED');
    expect(refused.message).toContain('association labels between 2-1 and 0-1: 0 of 0 in use (limit of the free tier)');
    expect(refused.errors).toEqual([expect.objectContaining({ code: 'LIMIT_EXCEEDED' })]);
    expect((await call(freeToken, 'GET', LABELS)).json().results).toEqual([
      expect.objectContaining({ limit: 0, usage: 0, percentage: 0, allLabels: [] }),
    ]);
  });

  it('the admin override sets the per-pair ceiling; a delete frees a slot; the admin view reports usage', async () => {
    await t.admin('PUT', `/admin/v1/accounts/${professional}/limits`, { customObjectTypes: 2, associationLabels: 2 });
    await createSchema(proToken, 'rooms', []);
    await createSchema(proToken, 'desks', []);
    const label = (from: string, to: string, name: string) =>
      call(proToken, 'POST', `${V3}/${from}/associations`, { fromObjectTypeId: from, toObjectTypeId: to, name });
    expect((await label('rooms', 'contacts', 'r1')).statusCode).toBe(201);
    expect((await label('rooms', 'contacts', 'r2')).statusCode).toBe(201);
    const over = expectError(await label('rooms', 'contacts', 'r3'), 400, 'VALIDATION_ERROR');
    expect(over.message).toContain('2 of 2 in use (limit set for this account)');
    expect(over.context).toEqual({ limit: ['2'], usage: ['2'], tier: ['professional'] });
    // the ceiling is per pair: another pair still has room
    expect((await label('rooms', 'desks', 'r3')).statusCode).toBe(201);
    expect((await label('desks', 'contacts', 'd1')).statusCode).toBe(201);

    const admin = (await t.admin('GET', `/admin/v1/accounts/${professional}/limits`)).json();
    expect(admin).toMatchObject({
      overrides: { customObjectTypes: 2, associationLabels: 2 },
      effectiveLimits: { associationLabels: 2 },
      tierLimits: { associationLabels: 50 },
      usage: { associationLabelsByPair: { '2-1:0-1': 2, '2-1:2-2': 1, '2-2:0-1': 1 } },
    });

    expect((await call(proToken, 'DELETE', `${V3}/rooms/associations/r1`)).statusCode).toBe(204);
    expect((await label('rooms', 'contacts', 'r4')).statusCode).toBe(201);
    const cleared = await t.admin('PUT', `/admin/v1/accounts/${professional}/limits`, { associationLabels: null });
    expect(cleared.json().effectiveLimits.associationLabels).toBe(50);
    const bad = await t.admin('PUT', `/admin/v1/accounts/${professional}/limits`, { associationLabels: -1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().category).toBe('VALIDATION_ERROR');
  });

  it('20 concurrent label creates at the last 5 free slots: exactly 5 land, the rest are refused by the ceiling', async () => {
    const used = (await call(proToken, 'GET', `${LABELS}?fromObjectTypeId=rooms&toObjectTypeId=desks`)).json()
      .results[0].usage as number;
    expect(used).toBe(1);
    await t.admin('PUT', `/admin/v1/accounts/${professional}/limits`, { associationLabels: used + 5 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(proToken, 'POST', `${V3}/rooms/associations`, {
          fromObjectTypeId: '2-1',
          toObjectTypeId: '2-2',
          name: `race_${i}`,
        }),
      ),
    );
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 400)).toHaveLength(15);
    for (const r of answers.filter((a) => a.statusCode === 400)) {
      expect(r.json().subCategory).toBe('LIMITS.ASSOCIATION_LABELS_LIMIT_EXCEEDED');
    }
    const ids = answers.filter((a) => a.statusCode === 201).map((a) => a.json().id);
    expect(new Set(ids).size).toBe(5);
    const after = (await call(proToken, 'GET', `${LABELS}?fromObjectTypeId=2-1&toObjectTypeId=2-2`)).json().results[0];
    expect(after).toMatchObject({ limit: 6, usage: 6, percentage: 100 });
  });
});

describe('read model', () => {
  function fingerprint(db: Database.Database): Record<string, { rows: number; sha256: string }> {
    const out: Record<string, { rows: number; sha256: string }> = {};
    for (const table of LIMITS_TABLES) {
      const rows = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
      out[table] = { rows: rows.length, sha256: createHash('sha256').update(JSON.stringify(rows)).digest('hex') };
    }
    return out;
  }

  it('a rebuild from the event history equals the live state (patches and associations included)', async () => {
    const db = t.app.get<Database.Database>(READ_MODEL_DB);
    const live = fingerprint(db);
    const labels = (await call(proToken, 'GET', LABELS)).json();
    await t.app.get(ProjectionRunner).rebuild(LIMITS_PROJECTION);
    expect(fingerprint(db)).toEqual(live);
    expect((await call(proToken, 'GET', LABELS)).json()).toEqual(labels);
  });
});
