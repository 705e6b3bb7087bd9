import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { DirectoryModule } from '../../src/directory';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 40, items 1, 3, 4 and 6: HubSpot's Python client's spellings, `phone_number` properties,
 * where `hasUniqueValue` may be set, the schema purge path of `@hubspot/api-client` 11, and
 * `REQUIRED` for a missing field.
 *
 * HubSpot's Python client (hubspot-api-client 9–12) cannot be installed here (no Python registry):
 * the requests below are the ones its generated code sends, written down from it. It turns a
 * Python bool into a query value with `str()`, so `core_api.get_all(archived=True)` asks for
 * `?archived=True`, and `schemas.core_api.get_all(archived=False)` for `?archived=False`.
 */
let t: TestApp;
let hubId: number;
let bearer: string;

beforeAll(async () => {
  t = await startTestApp({ modules: [DirectoryModule, CrmSchemaModule] });
  hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  bearer = mintLimitsToken(t, { hubId, userId: 9, scopes: LIMITS_TEST_SCOPES });
});
afterAll(() => t?.close());

const call = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

const property = (name: string, extra: object = {}) => ({
  name,
  label: name,
  type: 'string',
  fieldType: 'text',
  groupName: 'contactinformation',
  ...extra,
});

describe('booleans as HubSpot clients spell them (item 1)', () => {
  beforeAll(async () => {
    expect((await call('POST', '/crm/v3/properties/contacts', property('to_archive'))).statusCode).toBe(201);
    expect((await call('DELETE', '/crm/v3/properties/contacts/to_archive')).statusCode).toBe(204);
  });

  it.each(['True', 'true', 'TRUE', 'tRuE'])('archived=%s lists the archived properties', async (spelling) => {
    const r = await call('GET', `/crm/v3/properties/contacts?archived=${spelling}`);
    expect(r.statusCode).toBe(200);
    expect(r.json().results.map((p: { name: string }) => p.name)).toEqual(['to_archive']);
  });

  it.each(['False', 'false', 'FALSE'])('archived=%s lists the live ones', async (spelling) => {
    const r = await call('GET', `/crm/v3/properties/contacts?archived=${spelling}`);
    expect(r.statusCode).toBe(200);
    expect(r.json().results.map((p: { name: string }) => p.name)).not.toContain('to_archive');
  });

  it('the schemas listing and its include flags take them too (the Python client sends False)', async () => {
    const r = await call('GET', '/crm-object-schemas/v3/schemas?archived=False&includePropertyDefinitions=False');
    expect(r.statusCode).toBe(200);
    expect(Array.isArray(r.json().results)).toBe(true);
  });

  it.each(['yes', '1', 'truee', 'T', 'None'])('garbage (%s) is still refused, naming the parameter', async (v) => {
    const r = await call('GET', `/crm/v3/properties/contacts?archived=${v}`);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'archived', code: 'INVALID' }] });
  });

  it('a repeated parameter is refused, never a 500', async () => {
    const r = await call('GET', '/crm/v3/properties/contacts?archived=true&archived=false');
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ errors: [{ in: 'archived' }] });
  });
});

describe('phone_number properties and hasUniqueValue (item 3)', () => {
  it('type phone_number with fieldType phonenumber is created and read back', async () => {
    const r = await call(
      'POST',
      '/crm/v3/properties/contacts',
      property('backup_phone', { type: 'phone_number', fieldType: 'phonenumber' }),
    );
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ name: 'backup_phone', type: 'phone_number', fieldType: 'phonenumber' });
    const read = await call('GET', '/crm/v3/properties/contacts/backup_phone');
    expect(read.json()).toMatchObject({ type: 'phone_number', fieldType: 'phonenumber' });
  });

  it('phone_number with another field type is refused, naming the field type', async () => {
    const r = await call(
      'POST',
      '/crm/v3/properties/contacts',
      property('bad_phone', { type: 'phone_number', fieldType: 'select' }),
    );
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'fieldType' }] });
  });

  it.each([
    ['string', 'text'],
    ['number', 'number'],
  ])('hasUniqueValue on %s/%s is accepted', async (type, fieldType) => {
    const r = await call(
      'POST',
      '/crm/v3/properties/contacts',
      property(`unique_${type}`, { type, fieldType, hasUniqueValue: true }),
    );
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ hasUniqueValue: true });
  });

  it.each([
    ['string', 'textarea'],
    ['phone_number', 'phonenumber'],
    ['date', 'date'],
    ['enumeration', 'select'],
  ])('hasUniqueValue on %s/%s is refused', async (type, fieldType) => {
    const options = type === 'enumeration' ? { options: [{ label: 'A', value: 'a' }] } : {};
    const r = await call(
      'POST',
      '/crm/v3/properties/contacts',
      property(`not_unique_${type}`, { type, fieldType, hasUniqueValue: true, ...options }),
    );
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({
      category: 'VALIDATION_ERROR',
      errors: [{ in: 'hasUniqueValue', code: 'INVALID' }],
    });
  });
});

describe('DELETE …/schemas/{objectType}/purge, as @hubspot/api-client 11 calls it (item 4)', () => {
  const egg = (name: string) => ({
    name,
    labels: { singular: name, plural: `${name}s` },
    primaryDisplayProperty: 'title',
    requiredProperties: ['title'],
    properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
    associatedObjects: ['CONTACT'],
  });

  it.each(['/crm/v3/schemas', '/crm-object-schemas/v3/schemas'])('purges an archived schema at %s', async (base) => {
    const name = `purged${base.length}`;
    const created = await call('POST', '/crm/v3/schemas', egg(name));
    expect(created.statusCode).toBe(201);
    const id = created.json().objectTypeId as string;
    // Not archived yet: HubSpot's refusal, as the ?archived=true form gives it.
    expect((await call('DELETE', `${base}/${id}/purge`)).statusCode).toBe(400);
    expect((await call('DELETE', `/crm/v3/schemas/${id}`)).statusCode).toBe(204);
    const purged = await call('DELETE', `${base}/${id}/purge`);
    expect(purged.statusCode).toBe(204);
    expect(purged.body).toBe('');
    const archived = await call('GET', '/crm/v3/schemas?archived=true');
    expect(archived.json().results.map((s: { objectTypeId: string }) => s.objectTypeId)).not.toContain(id);
  });

  it('an unknown object type is 404; a dated path has no purge route (404)', async () => {
    expect((await call('DELETE', '/crm/v3/schemas/2-99999999/purge')).statusCode).toBe(404);
    expect((await call('DELETE', '/crm-object-schemas/2026-03/schemas/2-99999999/purge')).statusCode).toBe(404);
  });

  it('needs the schemas write scope', async () => {
    const reader = mintLimitsToken(t, { hubId, userId: 9, scopes: ['crm.schemas.custom.read'] });
    const r = await t.inject({
      method: 'DELETE',
      url: '/crm/v3/schemas/2-1/purge',
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({ category: 'MISSING_SCOPES' });
  });
});

describe('a missing field is REQUIRED (item 6)', () => {
  it('an app without redirectUrls: in redirectUrls, code REQUIRED, as docs/oauth.md says', async () => {
    const r = await t.admin('POST', '/admin/v1/apps', {
      developerHubId: hubId,
      name: 'No redirect',
      requiredScopes: ['oauth'],
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({
      category: 'VALIDATION_ERROR',
      errors: [{ in: 'redirectUrls', code: 'REQUIRED', message: 'redirectUrls is required' }],
    });
  });
});
