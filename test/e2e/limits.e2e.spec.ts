import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { LIMITS_PROJECTION, LIMITS_TABLES } from '../../src/crm-schema/projections/limits.projection';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

const SPEC = 'limitsTracking.json';
const CALC = '/crm/v3/limits/calculated-properties';
const TYPES = '/crm/v3/limits/custom-object-types';
const CUSTOM = '/crm/v3/limits/custom-properties';

let t: TestApp;
let enterprise: number;
let professional: number;
let free: number;
let entToken: string;
let proToken: string;
let freeToken: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

function call(token: string, method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, payload?: unknown) {
  return t.inject({
    method,
    url,
    headers: { ...auth(token), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
}

const calcProperty = (name: string, formula = 'hs_object_id * 2', groupName = 'dealinformation') => ({
  name,
  label: `Calc ${name}`,
  type: 'number',
  fieldType: 'calculation_equation',
  groupName,
  calculationFormula: formula,
});
const textProperty = (name: string, groupName = 'contactinformation') => ({
  name,
  label: `Text ${name}`,
  type: 'string',
  fieldType: 'text',
  groupName,
});
const schemaBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  labels: { singular: `${name} item`, plural: `${name} items` },
  primaryDisplayProperty: 'title',
  requiredProperties: ['title'],
  properties: [
    { name: 'title', label: 'Title', type: 'string', fieldType: 'text' },
    { name: 'price', label: 'Price', type: 'number', fieldType: 'number' },
  ],
  associatedObjects: ['CONTACT'],
  ...extra,
});

/** A JSON success body that conforms to the official spec. */
function specBody(r: LightMyRequestResponse, path: string) {
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json();
  expect(validateResponse(SPEC, 'GET', path, body)).toEqual([]);
  return body;
}

function expectError(r: LightMyRequestResponse, status: number, category: string) {
  expect({ status: r.statusCode, body: r.json() }).toMatchObject({ status, body: { category } });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.json().correlationId).toMatch(/^[0-9a-f-]{36}$/);
  return r.json();
}

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
  enterprise = (await createAccount(t, { tier: 'enterprise' })).hubId;
  professional = (await createAccount(t, { tier: 'professional' })).hubId;
  free = (await createAccount(t, { tier: 'free' })).hubId;
  entToken = mintLimitsToken(t, { hubId: enterprise, userId: 11, scopes: LIMITS_TEST_SCOPES });
  proToken = mintLimitsToken(t, { hubId: professional, userId: 12, scopes: LIMITS_TEST_SCOPES });
  freeToken = mintLimitsToken(t, { hubId: free, userId: 13, scopes: LIMITS_TEST_SCOPES });
});

afterAll(async () => {
  await t?.close();
});

describe('limits: acceptance walk-through on the enterprise account', () => {
  it('starts empty, with the enterprise ceilings', async () => {
    expect(specBody(await call(entToken, 'GET', CALC), CALC)).toEqual({
      overallLimit: 400,
      overallUsage: 0,
      overallPercentage: 0,
      byObjectType: [],
    });
    expect(specBody(await call(entToken, 'GET', TYPES), TYPES)).toEqual({ limit: 10, usage: 0, percentage: 0 });
    const custom = specBody(await call(entToken, 'GET', CUSTOM), CUSTOM);
    expect(custom).toMatchObject({ overallUsage: 0, overallLimit: 4000 });
    expect(custom.byObjectType.map((r: { objectTypeId: string }) => r.objectTypeId)).toEqual([
      '0-1',
      '0-2',
      '0-3',
      '0-5',
    ]);
  });

  it('calculated properties on contacts and deals and two custom object types move the counts', async () => {
    const contacts = await call(
      entToken,
      'POST',
      '/crm/v3/properties/contacts',
      calcProperty('score_x2', 'hs_object_id * 2', 'contactinformation'),
    );
    expect(contacts.statusCode).toBe(201);
    expect(contacts.headers['content-type']).toMatch(/^application\/json/);
    expect(contacts.json()).toMatchObject({
      name: 'score_x2',
      fieldType: 'calculation_equation',
      calculated: true,
      calculationFormula: 'hs_object_id * 2',
      archived: false,
      createdUserId: '11',
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    expect((await call(entToken, 'POST', '/crm/v3/properties/0-3', calcProperty('amount_x2'))).statusCode).toBe(201);

    const cars = await call(entToken, 'POST', '/crm/v3/schemas', schemaBody('cars'));
    expect(cars.statusCode).toBe(201);
    expect(cars.json()).toMatchObject({
      objectTypeId: '2-1',
      id: '1',
      name: 'cars',
      fullyQualifiedName: `p${enterprise}_cars`,
      labels: { singular: 'cars item', plural: 'cars items' },
      requiredProperties: ['title'],
      primaryDisplayProperty: 'title',
      archived: false,
      associations: [{ fromObjectTypeId: '2-1', toObjectTypeId: '0-1' }],
    });
    const own = (p: { hubspotDefined?: boolean }) => !p.hubspotDefined;
    expect(
      cars
        .json()
        .properties.filter(own)
        .map((p: { name: string }) => p.name),
    ).toEqual(['price', 'title']);
    const boats = await call(
      entToken,
      'POST',
      '/crm/v3/schemas',
      schemaBody('boats', { associatedObjects: ['COMPANY', 'cars'] }),
    );
    expect(boats.json()).toMatchObject({ objectTypeId: '2-2' });

    // a calculated property on a custom type, named by fully qualified name
    const onCars = await call(
      entToken,
      'POST',
      `/crm/v3/properties/p${enterprise}_cars`,
      calcProperty('price_x2', 'hs_object_id * 2', 'cars_information'),
    );
    expect(onCars.statusCode).toBe(201);

    expect(specBody(await call(entToken, 'GET', CALC), CALC)).toEqual({
      overallLimit: 400,
      overallUsage: 3,
      overallPercentage: 0.75,
      byObjectType: [
        { objectTypeId: '0-1', singularLabel: 'Contact', pluralLabel: 'Contacts', usage: 1 },
        { objectTypeId: '0-3', singularLabel: 'Deal', pluralLabel: 'Deals', usage: 1 },
        { objectTypeId: '2-1', singularLabel: 'cars item', pluralLabel: 'cars items', usage: 1 },
      ],
    });
    expect(specBody(await call(entToken, 'GET', TYPES), TYPES)).toEqual({ limit: 10, usage: 2, percentage: 20 });
    const custom = specBody(await call(entToken, 'GET', CUSTOM), CUSTOM);
    expect(custom).toMatchObject({ overallLimit: 6000, overallUsage: 7 });
    expect(custom.byObjectType.find((r: { objectTypeId: string }) => r.objectTypeId === '2-1')).toEqual({
      objectTypeId: '2-1',
      singularLabel: 'cars item',
      pluralLabel: 'cars items',
      usage: 3,
      limit: 1000,
      percentage: 0.3,
    });
  });

  it('archiving drops them again', async () => {
    const del = await call(entToken, 'DELETE', '/crm/v3/properties/contacts/score_x2');
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect(specBody(await call(entToken, 'GET', CALC), CALC)).toMatchObject({
      overallUsage: 2,
      overallPercentage: 0.5,
    });

    expect((await call(entToken, 'DELETE', '/crm/v3/schemas/boats')).statusCode).toBe(204);
    expect(specBody(await call(entToken, 'GET', TYPES), TYPES)).toEqual({ limit: 10, usage: 1, percentage: 10 });

    // archiving the schema takes its calculated property out of the count too
    expect((await call(entToken, 'DELETE', '/crm/v3/schemas/2-1')).statusCode).toBe(204);
    expect(specBody(await call(entToken, 'GET', CALC), CALC)).toEqual({
      overallLimit: 400,
      overallUsage: 1,
      overallPercentage: 0.25,
      byObjectType: [{ objectTypeId: '0-3', singularLabel: 'Deal', pluralLabel: 'Deals', usage: 1 }],
    });
    expect(specBody(await call(entToken, 'GET', TYPES), TYPES)).toMatchObject({ usage: 0 });

    // archived things are still readable with archived=true
    const archivedProps = await call(entToken, 'GET', '/crm/v3/properties/contacts?archived=true');
    expect(archivedProps.json().results).toMatchObject([{ name: 'score_x2', archived: true }]);
    expect(archivedProps.json().results[0].archivedAt).toBe(new Date(t.clock.now()).toISOString());
    const archivedSchemas = await call(entToken, 'GET', '/crm/v3/schemas?archived=true');
    expect(archivedSchemas.json().results.map((s: { name: string }) => s.name)).toEqual(['cars', 'boats']);
    expect((await call(entToken, 'GET', '/crm/v3/schemas')).json()).toEqual({ results: [] });
  });

  it('an archived schema name is reserved until purged with ?archived=true', async () => {
    const again = await call(entToken, 'POST', '/crm/v3/schemas', schemaBody('boats'));
    expect(expectError(again, 409, 'CONFLICT').message).toContain('purge');
    expect((await call(entToken, 'DELETE', '/crm/v3/schemas/boats?archived=true')).statusCode).toBe(204);
    const reborn = await call(entToken, 'POST', '/crm/v3/schemas', schemaBody('boats'));
    expect(reborn.statusCode).toBe(201);
    expect(reborn.json().objectTypeId).toBe('2-3');
  });
});

describe('limits: the professional account', () => {
  it('is refused custom object types with a clear message', async () => {
    const r = await call(proToken, 'POST', '/crm/v3/schemas', schemaBody('cars'));
    const body = expectError(r, 400, 'VALIDATION_ERROR');
    expect(body.subCategory).toBe('LIMITS.CUSTOM_OBJECT_TYPES_LIMIT_EXCEEDED');
    expect(body.message).toBe(
      'You have reached your limit of custom object types: 0 of 0 in use (limit of the professional tier). ' +
        'Cannot create another custom object type; archive unused custom object types or ask for a higher limit.',
    );
    expect(body.context).toEqual({ limit: ['0'], usage: ['0'], tier: ['professional'] });
    expect(specBody(await call(proToken, 'GET', TYPES), TYPES)).toEqual({ limit: 0, usage: 0, percentage: 0 });
  });

  it('has calculated properties; the free account has none', async () => {
    expect((await call(proToken, 'POST', '/crm/v3/properties/deals', calcProperty('a_x2'))).statusCode).toBe(201);
    expect(specBody(await call(proToken, 'GET', CALC), CALC)).toMatchObject({
      overallLimit: 200,
      overallUsage: 1,
      overallPercentage: 0.5,
    });
    const refused = expectError(
      await call(freeToken, 'POST', '/crm/v3/properties/deals', calcProperty('a_x2')),
      400,
      'VALIDATION_ERROR',
    );
    expect(refused.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
    expect(refused.message).toContain('0 of 0 in use (limit of the free tier)');
  });
});

describe('limits: ceilings, overrides and races', () => {
  let hub: number;
  let token: string;
  beforeAll(async () => {
    hub = (await createAccount(t, { tier: 'professional' })).hubId;
    token = mintLimitsToken(t, { hubId: hub, userId: 21, scopes: LIMITS_TEST_SCOPES });
  });

  it('an override sets the ceiling; past it: 400 with limit and usage; archive then create fits again', async () => {
    const put = await t.admin('PUT', `/admin/v1/accounts/${hub}/limits`, {
      calculatedProperties: 2,
      customObjectTypes: 1,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      hubId: hub,
      tier: 'professional',
      overrides: { calculatedProperties: 2, customObjectTypes: 1 },
      effectiveLimits: { calculatedProperties: 2, customObjectTypes: 1, customProperties: 1000 },
    });
    for (const n of ['c1', 'c2'])
      expect(
        (await call(token, 'POST', '/crm/v3/properties/contacts', calcProperty(n, undefined, 'contactinformation')))
          .statusCode,
      ).toBe(201);
    const over = expectError(
      await call(token, 'POST', '/crm/v3/properties/contacts', calcProperty('c3', undefined, 'contactinformation')),
      400,
      'VALIDATION_ERROR',
    );
    expect(over.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
    expect(over.message).toContain('2 of 2 in use (limit set for this account)');
    expect(over.errors).toMatchObject([
      { code: 'LIMIT_EXCEEDED', subCategory: 'LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED' },
    ]);
    expect(specBody(await call(token, 'GET', CALC), CALC)).toMatchObject({
      overallLimit: 2,
      overallUsage: 2,
      overallPercentage: 100,
    });

    expect((await call(token, 'DELETE', '/crm/v3/properties/contacts/c1')).statusCode).toBe(204);
    expect(
      (await call(token, 'POST', '/crm/v3/properties/contacts', calcProperty('c3', undefined, 'contactinformation')))
        .statusCode,
    ).toBe(201);

    // a lower override leaves usage above the limit: reads say so, creates are refused
    await t.admin('PUT', `/admin/v1/accounts/${hub}/limits`, { calculatedProperties: 1 });
    expect(specBody(await call(token, 'GET', CALC), CALC)).toMatchObject({
      overallLimit: 1,
      overallUsage: 2,
      overallPercentage: 200,
    });
    // null clears the override: back to the professional tier's 200
    const cleared = await t.admin('PUT', `/admin/v1/accounts/${hub}/limits`, { calculatedProperties: null });
    expect(cleared.json().overrides).toEqual({ customObjectTypes: 1 });
    expect(specBody(await call(token, 'GET', CALC), CALC)).toMatchObject({ overallLimit: 200 });
    const read = await t.admin('GET', `/admin/v1/accounts/${hub}/limits`);
    expect(read.json()).toMatchObject({ usage: { calculatedProperties: 2, customObjectTypes: 0 } });
  });

  it('the last calculated-property slot: many concurrent creates, exactly one wins', async () => {
    const usage = (await call(token, 'GET', CALC)).json().overallUsage as number;
    await t.admin('PUT', `/admin/v1/accounts/${hub}/limits`, { calculatedProperties: usage + 1 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(token, 'POST', '/crm/v3/properties/deals', calcProperty(`race_${i}`))),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.statusCode === 400)) {
      expect(r.json().subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
    }
    expect((await call(token, 'GET', CALC)).json()).toMatchObject({ overallUsage: usage + 1, overallLimit: usage + 1 });
  });

  it('the last custom object type slot: two concurrent creates, exactly one wins', async () => {
    const [a, b] = await Promise.all([
      call(token, 'POST', '/crm/v3/schemas', schemaBody('alpha')),
      call(token, 'POST', '/crm/v3/schemas', schemaBody('beta')),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 400]);
    expect((await call(token, 'GET', TYPES)).json()).toEqual({ limit: 1, usage: 1, percentage: 100 });
  });

  it('a burst of concurrent creates on one account all land (the account stream is contended, not refused)', async () => {
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(token, 'POST', '/crm/v3/properties/contacts', textProperty(`burst_${i}`)),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(16).fill(201));
    const names = (await call(token, 'GET', '/crm/v3/properties/contacts'))
      .json()
      .results.map((p: { name: string }) => p.name);
    for (let i = 0; i < 16; i++) expect(names).toContain(`burst_${i}`);
  });

  it('the same name created twice at once: one 201, one 409', async () => {
    const [a, b] = await Promise.all([
      call(token, 'POST', '/crm/v3/properties/companies', textProperty('twin', 'companyinformation')),
      call(token, 'POST', '/crm/v3/properties/companies', textProperty('twin', 'companyinformation')),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
  });
});

describe('limits: properties API', () => {
  it('lists HubSpot-defined and custom properties and reads one by name', async () => {
    expect(
      (await call(entToken, 'POST', '/crm/v3/properties/tickets', textProperty('ticket_note', 'ticketinformation')))
        .statusCode,
    ).toBe(201);
    const list = await call(entToken, 'GET', '/crm/v3/properties/0-5');
    expect(list.statusCode).toBe(200);
    const names = list.json().results.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['subject', 'hs_pipeline', 'ticket_note']));
    const builtIn = await call(entToken, 'GET', '/crm/v3/properties/tickets/subject');
    expect(builtIn.json()).toMatchObject({ hubspotDefined: true, modificationMetadata: { archivable: false } });
    const one = await call(entToken, 'GET', '/crm/v3/properties/ticket/ticket_note');
    expect(one.json()).toMatchObject({
      name: 'ticket_note',
      type: 'string',
      fieldType: 'text',
      calculated: false,
      hidden: false,
    });
  });

  it('duplicate names are 409 CONFLICT, also against HubSpot-defined ones', async () => {
    expect(
      (await call(entToken, 'POST', '/crm/v3/properties/companies', textProperty('dup_me', 'companyinformation')))
        .statusCode,
    ).toBe(201);
    const dup = expectError(
      await call(entToken, 'POST', '/crm/v3/properties/companies', textProperty('dup_me', 'companyinformation')),
      409,
      'CONFLICT',
    );
    expect(dup.message).toBe("Property named 'dup_me' already exists.");
    expectError(
      await call(entToken, 'POST', '/crm/v3/properties/companies', textProperty('domain', 'companyinformation')),
      409,
      'CONFLICT',
    );
    expectError(await call(entToken, 'POST', '/crm/v3/schemas', schemaBody('boats')), 409, 'CONFLICT');
  });

  it('unknown, archived and missing things', async () => {
    expectError(await call(entToken, 'GET', '/crm/v3/properties/contacts/not_there'), 404, 'OBJECT_NOT_FOUND');
    expectError(await call(entToken, 'DELETE', '/crm/v3/properties/contacts/not_there'), 404, 'OBJECT_NOT_FOUND');
    expectError(await call(entToken, 'DELETE', '/crm/v3/properties/contacts/email'), 400, 'VALIDATION_ERROR');
    expectError(await call(entToken, 'GET', '/crm/v3/properties/widgets'), 400, 'VALIDATION_ERROR');
    expectError(await call(entToken, 'GET', '/crm/v3/properties/2-1'), 400, 'VALIDATION_ERROR'); // archived type
    expectError(await call(entToken, 'GET', '/crm/v3/schemas/2-1'), 404, 'OBJECT_NOT_FOUND');
    expectError(await call(entToken, 'DELETE', '/crm/v3/schemas/2-99'), 404, 'OBJECT_NOT_FOUND');
    // an archived property is gone for DELETE, as for GET without ?archived=true (batch archive is the idempotent one)
    expectError(await call(entToken, 'DELETE', '/crm/v3/properties/contacts/score_x2'), 404, 'OBJECT_NOT_FOUND');
  });
});

describe('limits: authentication and scopes', () => {
  it('needs a valid bearer token', async () => {
    expectError(await t.inject({ method: 'GET', url: CALC }), 401, 'INVALID_AUTHENTICATION');
    expectError(await call('k1.bogus.token', 'GET', CALC), 401, 'INVALID_AUTHENTICATION');
    const expired = mintLimitsToken(t, { hubId: enterprise, scopes: LIMITS_TEST_SCOPES, ttlMs: 1000 });
    t.clock.advance(5 * 60_000);
    expectError(await call(expired, 'GET', CALC), 401, 'EXPIRED_AUTHENTICATION');
  });

  it('accepts any scope of the official lists and nothing else', async () => {
    const contactsRead = mintLimitsToken(t, { hubId: enterprise, scopes: ['crm.objects.contacts.read'] });
    expect((await call(contactsRead, 'GET', CALC)).statusCode).toBe(200);
    expect((await call(contactsRead, 'GET', CUSTOM)).statusCode).toBe(200);
    const refused = expectError(await call(contactsRead, 'GET', TYPES), 403, 'MISSING_SCOPES');
    expect(refused.context.requiredScopes).toContain('crm.schemas.custom.read');
    const customRead = mintLimitsToken(t, { hubId: enterprise, scopes: ['crm.schemas.custom.read'] });
    expect((await call(customRead, 'GET', TYPES)).statusCode).toBe(200);
    expectError(await call(customRead, 'GET', CALC), 403, 'MISSING_SCOPES');
    const oauthOnly = mintLimitsToken(t, { hubId: enterprise, scopes: ['oauth'] });
    const byGuard = expectError(await call(oauthOnly, 'GET', CALC), 403, 'MISSING_SCOPES');
    // Scopes that depend on the path (properties of one object type) are refused with the guard's words.
    const byPath = expectError(await call(oauthOnly, 'GET', '/crm/v3/properties/contacts'), 403, 'MISSING_SCOPES');
    expect(byPath.message).toBe(byGuard.message);
    expect(byPath.context.requiredScopes).toEqual(expect.arrayContaining(['crm.schemas.contacts.read']));
  });

  it('properties need the write scope of their object type; schemas need crm.schemas.custom.*', async () => {
    const contactsWrite = mintLimitsToken(t, { hubId: enterprise, scopes: ['crm.schemas.contacts.write'] });
    expect(
      (await call(contactsWrite, 'POST', '/crm/v3/properties/contacts', textProperty('scoped_ok'))).statusCode,
    ).toBe(201);
    const denied = expectError(
      await call(contactsWrite, 'POST', '/crm/v3/properties/deals', textProperty('scoped_no', 'dealinformation')),
      403,
      'MISSING_SCOPES',
    );
    expect(denied.context.requiredScopes).toEqual(['crm.schemas.deals.write', 'crm.objects.deals.write']);
    expect((await call(contactsWrite, 'GET', '/crm/v3/properties/contacts/scoped_ok')).statusCode).toBe(200);
    expectError(await call(contactsWrite, 'POST', '/crm/v3/properties/2-3', textProperty('x')), 403, 'MISSING_SCOPES');
    expectError(await call(contactsWrite, 'POST', '/crm/v3/schemas', schemaBody('nope')), 403, 'MISSING_SCOPES');
    const readOnly = mintLimitsToken(t, {
      hubId: enterprise,
      scopes: ['crm.schemas.custom.read', 'crm.schemas.contacts.read'],
    });
    expect((await call(readOnly, 'GET', '/crm/v3/schemas')).statusCode).toBe(200);
    expectError(await call(readOnly, 'DELETE', '/crm/v3/schemas/boats'), 403, 'MISSING_SCOPES');
    expectError(await call(readOnly, 'DELETE', '/crm/v3/properties/contacts/scoped_ok'), 403, 'MISSING_SCOPES');
  });

  it('the admin endpoint needs the admin key', async () => {
    expectError(
      await call(entToken, 'PUT', `/admin/v1/accounts/${enterprise}/limits`, { calculatedProperties: 1 }),
      401,
      'INVALID_AUTHENTICATION',
    );
  });
});

describe('limits: bad input never yields a 5xx', () => {
  const bad = async (r: Promise<LightMyRequestResponse>, field?: string) => {
    const body = expectError(await r, 400, 'VALIDATION_ERROR');
    if (field) expect(body.errors.map((e: { in: string }) => e.in)).toContain(field);
  };

  it('property create: missing fields, wrong types, enums, huge values', async () => {
    const url = '/crm/v3/properties/contacts';
    await bad(call(entToken, 'POST', url, {}), 'name');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), name: undefined }), 'name');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), groupName: undefined }), 'groupName');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), label: 42 }), 'label');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), type: 'money' }), 'type');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), fieldType: 'slider' }), 'fieldType');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), hidden: 'yes' }), 'hidden');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), displayOrder: 1e12 }), 'displayOrder');
    await bad(call(entToken, 'POST', url, { ...textProperty('a'), displayOrder: 1.5 }), 'displayOrder');
    await bad(call(entToken, 'POST', url, { ...textProperty('x'.repeat(101)) }), 'name');
    await bad(call(entToken, 'POST', url, { ...textProperty('Upper') }), 'name');
    await bad(
      call(entToken, 'POST', url, { ...calcProperty('f'), calculationFormula: 'x'.repeat(5001) }),
      'calculationFormula',
    );
    await bad(
      call(entToken, 'POST', url, { ...calcProperty('f'), calculationFormula: undefined }),
      'calculationFormula',
    );
    await bad(
      call(entToken, 'POST', url, { ...textProperty('o'), type: 'enumeration', fieldType: 'select', options: ['a'] }),
    );
    await bad(
      call(entToken, 'POST', url, {
        ...textProperty('o'),
        type: 'enumeration',
        fieldType: 'select',
        options: [{ label: 'a' }],
      }),
      'options.0.value',
    );
    await bad(call(entToken, 'POST', url, '[1,2]'), 'body');
    await bad(call(entToken, 'POST', url, '"text"'));
    await bad(call(entToken, 'POST', '/crm/v3/properties/widgets', textProperty('a')), 'objectType');
    await bad(call(entToken, 'POST', `/crm/v3/properties/${'x'.repeat(300)}`, textProperty('a')), 'objectType');
    const malformed = await call(entToken, 'POST', url, '{"name": ');
    expect(malformed.statusCode).toBe(400);
    const huge = await call(entToken, 'POST', url, {
      ...textProperty('big'),
      description: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(huge.statusCode).toBe(413);
  });

  it('schema create: missing fields, wrong types, broken references', async () => {
    await bad(call(entToken, 'POST', '/crm/v3/schemas', {}), 'name');
    await bad(call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), labels: undefined }), 'labels');
    await bad(
      call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), labels: { singular: 'S' } }),
      'labels.plural',
    );
    await bad(call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), labels: 'S' }), 'labels');
    await bad(call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), properties: 'none' }), 'properties');
    await bad(
      call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), requiredProperties: [1] }),
      'requiredProperties',
    );
    await bad(
      call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), requiredProperties: ['ghost'] }),
      'requiredProperties[0]',
    );
    await bad(
      call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), associatedObjects: ['SPACESHIP'] }),
      'associatedObjects[0]',
    );
    await bad(
      call(entToken, 'POST', '/crm/v3/schemas', { ...schemaBody('s1'), associatedObjects: undefined }),
      'associatedObjects',
    );
    await bad(
      call(entToken, 'POST', '/crm/v3/schemas', {
        ...schemaBody('s1'),
        properties: Array.from({ length: 1001 }, (_, i) => ({
          name: `p${i}`,
          label: 'P',
          type: 'string',
          fieldType: 'text',
        })),
      }),
      'properties',
    );
    await bad(call(entToken, 'POST', '/crm/v3/schemas', schemaBody('contacts')), 'name');
    await bad(call(entToken, 'POST', '/crm/v3/schemas', schemaBody('has-dash')), 'name');
  });

  it('query and path parameters', async () => {
    await bad(call(entToken, 'GET', '/crm/v3/properties/contacts?archived=maybe'), 'archived');
    await bad(call(entToken, 'GET', '/crm/v3/schemas?archived=1'), 'archived');
    await bad(call(entToken, 'GET', '/crm/v3/properties/contacts%00'), 'objectType');
  });

  it('admin limits: unknown account, bad ids, wrong types, negative, huge, empty', async () => {
    expectError(
      await t.admin('PUT', '/admin/v1/accounts/999999/limits', { calculatedProperties: 1 }),
      404,
      'OBJECT_NOT_FOUND',
    );
    expectError(await t.admin('GET', '/admin/v1/accounts/999999/limits'), 404, 'OBJECT_NOT_FOUND');
    await bad(t.admin('PUT', '/admin/v1/accounts/abc/limits', { calculatedProperties: 1 }), 'hubId');
    await bad(t.admin('PUT', '/admin/v1/accounts/99999999999999999999/limits', { calculatedProperties: 1 }), 'hubId');
    // Hub ids are int32 like everywhere else (the shared IntParamPipe): 11 digits is a bad id, not an unknown account.
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { calculatedProperties: 1 }],
    ] as const) {
      const r = await t.admin(method, '/admin/v1/accounts/99999999999/limits', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().errors).toEqual([expect.objectContaining({ in: 'hubId', code: 'INVALID_INTEGER' })]);
    }
    await bad(t.admin('GET', '/admin/v1/accounts/0/limits'), 'hubId');
    await bad(
      t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { calculatedProperties: -1 }),
      'calculatedProperties',
    );
    await bad(
      t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { calculatedProperties: '5' }),
      'calculatedProperties',
    );
    await bad(t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { customObjectTypes: 1e15 }), 'customObjectTypes');
    await bad(t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { customProperties: 2.5 }), 'customProperties');
    await bad(t.admin('PUT', `/admin/v1/accounts/${free}/limits`, {}), 'body');
    await bad(t.admin('PUT', `/admin/v1/accounts/${free}/limits`, [1]), 'body');
  });
});

describe('limits: read model', () => {
  /** A stable fingerprint of every row of every table the projection owns. */
  function fingerprint(db: Database.Database): Record<string, { rows: number; sha256: string }> {
    const out: Record<string, { rows: number; sha256: string }> = {};
    for (const table of LIMITS_TABLES) {
      const rows = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
      out[table] = { rows: rows.length, sha256: createHash('sha256').update(JSON.stringify(rows)).digest('hex') };
    }
    return out;
  }

  it('a rebuild from the event history equals the live state', async () => {
    const db = t.app.get<Database.Database>(READ_MODEL_DB);
    const live = fingerprint(db);
    expect(live.limits_properties!.rows).toBeGreaterThan(10);
    expect(live.limits_schemas!.rows).toBeGreaterThan(2);
    expect(live.limits_overrides!.rows).toBeGreaterThan(0);
    const runner = t.app.get(ProjectionRunner);
    await runner.rebuild(LIMITS_PROJECTION);
    expect(fingerprint(db)).toEqual(live);
    // and the endpoints answer the same after the rebuild
    expect(
      specBody(await call(mintLimitsToken(t, { hubId: enterprise, scopes: LIMITS_TEST_SCOPES }), 'GET', CALC), CALC),
    ).toMatchObject({
      overallUsage: 1,
    });
  });
});
