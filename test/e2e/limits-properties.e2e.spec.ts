import type { LightMyRequestResponse } from 'fastify';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { validateComponent, validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * The properties API beyond create/get/archive: PATCH, batch create/read/archive (201/207),
 * property groups, the list's query parameters, at v3 and the dated paths, every answer checked
 * against the spec of the version it came from.
 */
let t: TestApp;

/** `created` and `partial`: the batch answers' codes (2026-09's spec has only 200 for them). */
const VERSIONS = [
  { base: '/crm/v3/properties', file: 'v3/properties.json', spec: '/crm/v3/properties', created: 201, partial: 207 },
  {
    base: '/crm/properties/2026-03',
    file: '2026-03/properties.json',
    spec: '/crm/properties/2026-03',
    created: 201,
    partial: 207,
  },
  {
    base: '/crm/properties/2026-09',
    file: '2026-09/properties.json',
    spec: '/crm/properties/2026-09',
    created: 200,
    partial: 200,
  },
] as const;
const V3 = VERSIONS[0];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, checked against the spec
type Json = any;

async function call(
  token: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<{ status: number; body: Json; raw: LightMyRequestResponse }> {
  const raw = await t.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  return { status: raw.statusCode, body: raw.body === '' ? undefined : raw.json(), raw };
}

/** A success answer, checked against the operation's response schema in the version's spec. */
function ok(
  r: { status: number; body: Json; raw: LightMyRequestResponse },
  status: number,
  v: (typeof VERSIONS)[number],
  method: string,
  path: string,
) {
  expect({ status: r.status, body: r.body }).toMatchObject({ status });
  expect(r.raw.headers['content-type']).toMatch(/^application\/json/);
  expect(validateResponse(v.file, method, `${v.spec}${path}`, r.body, String(status))).toEqual([]);
  return r.body;
}

function expectError(r: { status: number; body: Json; raw: LightMyRequestResponse }, status: number, category: string) {
  expect({ status: r.status, body: r.body }).toMatchObject({ status, body: { category } });
  expect(r.body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  expect(validateComponent('v3/properties.json', 'Error', r.body)).toEqual([]);
  return r.body;
}

const text = (name: string, groupName = 'contactinformation') => ({
  name,
  label: `Text ${name}`,
  type: 'string',
  fieldType: 'text',
  groupName,
});
const calc = (name: string, groupName = 'contactinformation') => ({
  name,
  label: `Calc ${name}`,
  type: 'number',
  fieldType: 'calculation_equation',
  groupName,
  calculationFormula: 'hs_object_id * 2',
});
const select = (name: string) => ({
  name,
  label: `Select ${name}`,
  type: 'enumeration',
  fieldType: 'select',
  groupName: 'contactinformation',
  options: [
    { label: 'A', value: 'a', displayOrder: 0, hidden: false },
    { label: 'B', value: 'b', displayOrder: 1, hidden: false },
  ],
});

async function account(overrides?: Record<string, number>): Promise<{ hubId: number; token: string }> {
  const { hubId } = await createAccount(t, { tier: 'enterprise' });
  if (overrides) {
    const put = await t.admin('PUT', `/admin/v1/accounts/${hubId}/limits`, overrides);
    expect(put.statusCode).toBe(200);
  }
  return { hubId, token: mintLimitsToken(t, { hubId, userId: 21, scopes: LIMITS_TEST_SCOPES }) };
}

async function usage(token: string): Promise<{ calculated: number; contacts: number }> {
  const calcLimits = await call(token, 'GET', '/crm/v3/limits/calculated-properties');
  const custom = await call(token, 'GET', '/crm/v3/limits/custom-properties');
  expect(validateResponse('limitsTracking.json', 'GET', '/crm/v3/limits/custom-properties', custom.body)).toEqual([]);
  return {
    calculated: calcLimits.body.overallUsage,
    contacts: custom.body.byObjectType.find((r: { objectTypeId: string }) => r.objectTypeId === '0-1').usage,
  };
}

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
});

afterAll(async () => {
  await t?.close();
});

describe.each(VERSIONS)('properties at $base', (v) => {
  let token: string;
  beforeAll(async () => {
    token = (await account()).token;
  });

  it('PATCH changes label, description, options, display order and group (200, as the spec says)', async () => {
    ok(await call(token, 'POST', `${v.base}/contacts`, select('colour')), 201, v, 'POST', '/{objectType}');
    ok(
      await call(token, 'POST', `${v.base}/contacts/groups`, { name: 'myapp', label: 'My app', displayOrder: 3 }),
      201,
      v,
      'POST',
      '/{objectType}/groups',
    );
    const patched = ok(
      await call(token, 'PATCH', `${v.base}/contacts/colour`, {
        label: 'Colour',
        description: 'Favourite colour',
        displayOrder: 7,
        groupName: 'myapp',
        options: [{ label: 'Red', value: 'red', displayOrder: 0, hidden: false }],
      }),
      200,
      v,
      'PATCH',
      '/{objectType}/{propertyName}',
    );
    expect(patched).toMatchObject({
      name: 'colour',
      label: 'Colour',
      description: 'Favourite colour',
      displayOrder: 7,
      groupName: 'myapp',
      options: [{ label: 'Red', value: 'red' }],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
    });
    const read = ok(
      await call(token, 'GET', `${v.base}/contacts/colour`),
      200,
      v,
      'GET',
      '/{objectType}/{propertyName}',
    );
    expect(read).toEqual(patched);
  });

  it('PATCH to calculation_equation moves the property into the calculated usage; then its type is frozen', async () => {
    ok(await call(token, 'POST', `${v.base}/contacts`, text('score')), 201, v, 'POST', '/{objectType}');
    const before = await usage(token);
    const toCalc = ok(
      await call(token, 'PATCH', `${v.base}/contacts/score`, {
        type: 'number',
        fieldType: 'calculation_equation',
        calculationFormula: 'hs_object_id * 4',
      }),
      200,
      v,
      'PATCH',
      '/{objectType}/{propertyName}',
    );
    expect(toCalc).toMatchObject({ fieldType: 'calculation_equation', calculationFormula: 'hs_object_id * 4' });
    expect(await usage(token)).toEqual({ calculated: before.calculated + 1, contacts: before.contacts });
    // HubSpot: a calculation property's type and field type cannot be edited once created.
    for (const change of [
      { type: 'string', fieldType: 'text' },
      { fieldType: 'number' },
      { type: 'string' },
      { type: 'bool', fieldType: 'calculation_equation' },
    ]) {
      const refused = expectError(
        await call(token, 'PATCH', `${v.base}/contacts/score`, change),
        400,
        'VALIDATION_ERROR',
      );
      expect(refused.errors.map((e: { in: string; code: string }) => [e.in, e.code])).toEqual(
        Object.keys(change)
          .filter((k) => k === 'type' || change.fieldType !== 'calculation_equation')
          .map((k) => [k, 'READ_ONLY']),
      );
    }
    // A bad new formula is refused too; restating the type with a good formula is fine.
    const badFormula = expectError(
      await call(token, 'PATCH', `${v.base}/contacts/score`, { calculationFormula: 'nope + 1' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(badFormula.errors[0]).toMatchObject({ in: 'calculationFormula', code: 'INVALID_FORMULA' });
    const same = ok(
      await call(token, 'PATCH', `${v.base}/contacts/score`, {
        type: 'number',
        fieldType: 'calculation_equation',
        calculationFormula: 'hs_object_id + 1',
      }),
      200,
      v,
      'PATCH',
      '/{objectType}/{propertyName}',
    );
    expect(same).toMatchObject({ type: 'number', calculationFormula: 'hs_object_id + 1' });
    expect(await usage(token)).toEqual({ calculated: before.calculated + 1, contacts: before.contacts });
  });

  it('groups: list (HubSpot defaults and own), read, patch, archive; /groups is not a property', async () => {
    const list = ok(await call(token, 'GET', `${v.base}/contacts/groups`), 200, v, 'GET', '/{objectType}/groups');
    expect(list.results.map((g: { name: string }) => g.name)).toEqual(
      expect.arrayContaining(['contactinformation', 'myapp']),
    );
    const deals = ok(
      await call(token, 'GET', `${v.base}/deals/groups?locale=en-US`),
      200,
      v,
      'GET',
      '/{objectType}/groups',
    );
    expect(deals.results[0]).toEqual({
      name: 'dealinformation',
      label: 'Deal information',
      displayOrder: 0,
      archived: false,
    });
    ok(
      await call(token, 'POST', `${v.base}/contacts/groups`, { name: 'spare', label: 'Spare' }),
      201,
      v,
      'POST',
      '/{objectType}/groups',
    );
    const patched = ok(
      await call(token, 'PATCH', `${v.base}/contacts/groups/spare`, { label: 'Spare parts', displayOrder: 9 }),
      200,
      v,
      'PATCH',
      '/{objectType}/groups/{groupName}',
    );
    expect(patched).toEqual({ name: 'spare', label: 'Spare parts', displayOrder: 9, archived: false });
    expect(
      ok(
        await call(token, 'GET', `${v.base}/contacts/groups/spare`),
        200,
        v,
        'GET',
        '/{objectType}/groups/{groupName}',
      ),
    ).toEqual(patched);
    expect((await call(token, 'DELETE', `${v.base}/contacts/groups/spare`)).status).toBe(204);
    expectError(await call(token, 'GET', `${v.base}/contacts/groups/spare`), 404, 'OBJECT_NOT_FOUND');
    // myapp holds "colour": it stays
    const busy = expectError(await call(token, 'DELETE', `${v.base}/contacts/groups/myapp`), 400, 'VALIDATION_ERROR');
    expect(busy.subCategory).toBe('PROPERTY_GROUP_NOT_EMPTY');
    expectError(await call(token, 'DELETE', `${v.base}/contacts/groups/contactinformation`), 400, 'VALIDATION_ERROR');
    expectError(await call(token, 'POST', `${v.base}/contacts/groups`, { name: 'myapp', label: 'x' }), 409, 'CONFLICT');
  });

  it('batch create (201), batch read (200, 207 for missing names), batch archive (204)', async () => {
    const created = ok(
      await call(token, 'POST', `${v.base}/contacts/batch/create`, { inputs: [text('b_one'), calc('b_two')] }),
      v.created,
      v,
      'POST',
      '/{objectType}/batch/create',
    );
    expect(created).toMatchObject({
      status: 'COMPLETE',
      startedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect(created.results.map((p: { name: string }) => p.name)).toEqual(['b_one', 'b_two']);
    expect(created.errors).toBeUndefined();
    const someFail = ok(
      await call(token, 'POST', `${v.base}/contacts/batch/create`, { inputs: [text('b_three'), text('b_one')] }),
      v.partial,
      v,
      'POST',
      '/{objectType}/batch/create',
    );
    expect(someFail).toMatchObject({
      numErrors: 1,
      results: [{ name: 'b_three' }],
      errors: [{ category: 'CONFLICT' }],
    });

    const read = ok(
      await call(token, 'POST', `${v.base}/contacts/batch/read`, {
        archived: false,
        dataSensitivity: 'non_sensitive',
        inputs: [{ name: 'b_two' }, { name: 'email' }],
      }),
      200,
      v,
      'POST',
      '/{objectType}/batch/read',
    );
    expect(
      read.results.map((p: { name: string; hubspotDefined?: boolean }) => [p.name, p.hubspotDefined ?? false]),
    ).toEqual([
      ['b_two', false],
      ['email', true],
    ]);
    const partial = ok(
      await call(token, 'POST', `${v.base}/contacts/batch/read`, { inputs: [{ name: 'b_one' }, { name: 'nope' }] }),
      v.partial,
      v,
      'POST',
      '/{objectType}/batch/read',
    );
    expect(partial.results.map((p: { name: string }) => p.name)).toEqual(['b_one']);
    expect(partial).toMatchObject({
      numErrors: 1,
      errors: [{ category: 'OBJECT_NOT_FOUND', context: { propertyName: ['nope'] } }],
    });

    const archive = await call(token, 'POST', `${v.base}/contacts/batch/archive`, {
      inputs: [{ name: 'b_one' }, { name: 'b_two' }, { name: 'b_three' }, { name: 'never_existed' }],
    });
    expect(archive.status).toBe(204);
    expect(archive.raw.body).toBe('');
    const archived = ok(
      await call(token, 'GET', `${v.base}/contacts?archived=true&properties=b_one,b_two,b_three`),
      200,
      v,
      'GET',
      '/{objectType}',
    );
    expect(
      archived.results.map((p: { name: string; archived: boolean; archivedAt?: string }) => [
        p.name,
        p.archived,
        typeof p.archivedAt,
      ]),
    ).toEqual([
      ['b_one', true, 'string'],
      ['b_three', true, 'string'],
      ['b_two', true, 'string'],
    ]);
    // again: 204 whatever the state
    expect(
      (await call(token, 'POST', `${v.base}/contacts/batch/archive`, { inputs: [{ name: 'b_one' }] })).status,
    ).toBe(204);
  });
});

describe('list query parameters and response fields', () => {
  it('archived, properties, dataSensitivity, locale; hubspotDefined, modificationMetadata, createdAt, updatedAt, archivedAt', async () => {
    const { token } = await account();
    await call(token, 'POST', '/crm/v3/properties/deals', text('q_one', 'dealinformation'));
    await call(token, 'POST', '/crm/v3/properties/deals', text('q_two', 'dealinformation'));
    await call(token, 'DELETE', '/crm/v3/properties/deals/q_two');
    const all = ok(await call(token, 'GET', '/crm/v3/properties/deals?locale=de-DE'), 200, V3, 'GET', '/{objectType}');
    const byName = new Map(all.results.map((p: { name: string }) => [p.name, p]));
    expect(byName.get('dealname')).toMatchObject({
      hubspotDefined: true,
      modificationMetadata: { archivable: false, readOnlyDefinition: true },
    });
    expect(byName.get('q_one')).toMatchObject({
      createdAt: new Date(t.clock.now()).toISOString(),
      updatedAt: new Date(t.clock.now()).toISOString(),
      archived: false,
    });
    expect(byName.get('q_one')).not.toHaveProperty('hubspotDefined');
    expect(byName.has('q_two')).toBe(false);
    const some = ok(
      await call(token, 'GET', '/crm/v3/properties/deals?properties=q_one,amount'),
      200,
      V3,
      'GET',
      '/{objectType}',
    );
    expect(some.results.map((p: { name: string }) => p.name)).toEqual(['amount', 'q_one']);
    const archived = ok(
      await call(token, 'GET', '/crm/v3/properties/deals?archived=true'),
      200,
      V3,
      'GET',
      '/{objectType}',
    );
    expect(archived.results).toEqual([
      expect.objectContaining({ name: 'q_two', archived: true, archivedAt: expect.any(String) }),
    ]);
    const sensitive = ok(
      await call(token, 'GET', '/crm/v3/properties/deals?dataSensitivity=sensitive'),
      200,
      V3,
      'GET',
      '/{objectType}',
    );
    expect(sensitive.results).toEqual([]);
    expectError(await call(token, 'GET', '/crm/v3/properties/deals?dataSensitivity=secret'), 400, 'VALIDATION_ERROR');
    expectError(await call(token, 'GET', '/crm/v3/properties/deals?locale=%3Cscript%3E'), 400, 'VALIDATION_ERROR');
    expectError(
      await call(token, 'GET', '/crm/v3/properties/deals/q_one?dataSensitivity=sensitive'),
      404,
      'OBJECT_NOT_FOUND',
    );
    ok(
      await call(token, 'GET', '/crm/v3/properties/deals/q_one?properties=x&locale=en'),
      200,
      V3,
      'GET',
      '/{objectType}/{propertyName}',
    );
  });
});

describe('ceilings under PATCH and batch', () => {
  it('a patch that would cross the calculated ceiling is refused and nothing changes', async () => {
    const { token } = await account({ calculatedProperties: 1 });
    await call(token, 'POST', '/crm/v3/properties/contacts', calc('only_calc'));
    await call(token, 'POST', '/crm/v3/properties/contacts', text('plain'));
    const refused = expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/plain', {
        type: 'number',
        fieldType: 'calculation_equation',
        calculationFormula: 'hs_object_id',
        label: 'Changed',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(refused.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
    expect((await call(token, 'GET', '/crm/v3/properties/contacts/plain')).body).toMatchObject({
      label: 'Text plain',
      fieldType: 'text',
    });
    expect(await usage(token)).toEqual({ calculated: 1, contacts: 2 });
  });

  it('207: the first inputs fit under the ceiling, the rest are refused with HubSpot errors; counts exact', async () => {
    const { token } = await account({ customProperties: 4, calculatedProperties: 2 });
    await call(token, 'POST', '/crm/v3/properties/contacts', text('already'));
    const store = t.app.get<EventStore>(EVENT_STORE);
    const append = jest.spyOn(store, 'append');
    const r = await call(token, 'POST', '/crm/v3/properties/contacts/batch/create', {
      inputs: [calc('c_one'), calc('c_two'), calc('c_three'), text('t_one'), text('t_two'), text('t_one')],
    });
    const limitsAppends = append.mock.calls.filter(([stream]) => stream.startsWith('limits.account-'));
    append.mockRestore();
    const body = ok(r, 207, V3, 'POST', '/{objectType}/batch/create');
    expect(limitsAppends).toHaveLength(1); // one command, one append
    expect(limitsAppends[0]![1]).toHaveLength(3);
    expect(body.results.map((p: { name: string }) => p.name)).toEqual(['c_one', 'c_two', 't_one']);
    expect(body.numErrors).toBe(3);
    expect(
      body.errors.map((e: Json) => [e.context.inputIndex[0], e.category, e.errors[0].subCategory ?? e.errors[0].code]),
    ).toEqual([
      ['2', 'VALIDATION_ERROR', 'LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED'],
      ['4', 'VALIDATION_ERROR', 'LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED'],
      ['5', 'CONFLICT', 'PROPERTY_ALREADY_EXISTS'],
    ]);
    for (const e of body.errors) expect(validateComponent('v3/properties.json', 'StandardError', e)).toEqual([]);
    expect(await usage(token)).toEqual({ calculated: 2, contacts: 4 });
    const calcLimits = await call(token, 'GET', '/crm/v3/limits/calculated-properties');
    expect(calcLimits.body).toMatchObject({ overallLimit: 2, overallUsage: 2 });
  });

  it('20 concurrent batch creates at the last free slots create exactly as many as the ceiling allows', async () => {
    const { token } = await account({ customProperties: 15 });
    for (const n of ['x1', 'x2', 'x3', 'x4', 'x5']) await call(token, 'POST', '/crm/v3/properties/contacts', text(n));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(token, 'POST', '/crm/v3/properties/contacts/batch/create', { inputs: [text(`r${i}_a`), text(`r${i}_b`)] }),
      ),
    );
    const created = answers.flatMap((a) => a.body.results.map((p: { name: string }) => p.name));
    expect(created).toHaveLength(10);
    for (const a of answers) {
      expect([201, 207]).toContain(a.status);
      if (a.status === 207) {
        for (const e of a.body.errors) expect(e.errors[0].subCategory).toBe('LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED');
      }
    }
    expect(await usage(token)).toMatchObject({ contacts: 15 });
    const list = await call(token, 'GET', '/crm/v3/properties/contacts');
    expect(list.body.results.filter((p: { hubspotDefined?: boolean }) => !p.hubspotDefined)).toHaveLength(15);
  });
});

describe('bad input: HubSpot errors, no 5xx, nothing recorded when the request is refused whole', () => {
  let token: string;
  beforeAll(async () => {
    token = (await account()).token;
  });

  it('unknown object type on every route', async () => {
    for (const [method, path, body] of [
      ['PATCH', '/crm/v3/properties/widgets/x', { label: 'x' }],
      ['POST', '/crm/v3/properties/widgets/batch/create', { inputs: [text('x')] }],
      ['POST', '/crm/v3/properties/widgets/batch/read', { inputs: [{ name: 'x' }] }],
      ['POST', '/crm/v3/properties/widgets/batch/archive', { inputs: [{ name: 'x' }] }],
      ['GET', '/crm/v3/properties/widgets/groups', undefined],
      ['POST', '/crm/v3/properties/widgets/groups', { name: 'g', label: 'G' }],
      ['GET', '/crm/v3/properties/widgets/groups/g', undefined],
      ['PATCH', '/crm/v3/properties/widgets/groups/g', { label: 'G' }],
      ['DELETE', '/crm/v3/properties/widgets/groups/g', undefined],
    ] as const) {
      const r = await call(token, method, path, body);
      expect({ path, method, ...expectError(r, 400, 'VALIDATION_ERROR') }).toMatchObject({
        message: 'Unable to infer object type from: widgets',
      });
    }
  });

  it('unknown group, wrong option shapes, bad patch values', async () => {
    const noGroup = expectError(
      await call(token, 'POST', '/crm/v3/properties/contacts', text('orphan', 'no_such_group')),
      400,
      'VALIDATION_ERROR',
    );
    expect(noGroup.errors).toEqual([expect.objectContaining({ in: 'groupName' })]);
    await call(token, 'POST', '/crm/v3/properties/contacts', select('pick'));
    for (const patch of [
      { options: 'a,b' },
      { options: [{ label: 'A' }] },
      { options: [{ label: 1, value: 'a' }] },
      {
        options: [
          { label: 'A', value: 'a' },
          { label: 'B', value: 'a' },
        ],
      },
      { groupName: 'no_such_group' },
      { fieldType: 'slider' },
      { type: 'number' },
      { displayOrder: 'first' },
      { label: '' },
    ]) {
      const r = await call(token, 'PATCH', '/crm/v3/properties/contacts/pick', patch);
      expectError(r, 400, 'VALIDATION_ERROR');
    }
    const dated = await call(token, 'PATCH', '/crm/properties/2026-03/contacts/pick', {
      options: [{ label: 'A', value: 'a' }],
    });
    expect(expectError(dated, 400, 'VALIDATION_ERROR').errors[0].in).toBe('options.0.displayOrder');
    expect(
      (await call(token, 'GET', '/crm/v3/properties/contacts/pick')).body.options.map(
        (o: { value: string }) => o.value,
      ),
    ).toEqual(['a', 'b']);
    expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/email', { label: 'Mail' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/nope', { label: 'x' }),
      404,
      'OBJECT_NOT_FOUND',
    );
    expectError(await call(token, 'PATCH', '/crm/v3/properties/contacts/pick', '{"label":'), 400, 'VALIDATION_ERROR');
  });

  it('batches: 1,000 inputs, empty, wrong shapes are refused whole; duplicate names are reported per input', async () => {
    const before = (await call(token, 'GET', '/crm/v3/properties/contacts')).body.results.length;
    const thousand = Array.from({ length: 1000 }, (_, i) => text(`big_${i}`));
    for (const [path, body] of [
      ['/crm/v3/properties/contacts/batch/create', { inputs: thousand }],
      ['/crm/v3/properties/contacts/batch/create', { inputs: [...thousand.slice(0, 100), text('one_more')] }],
      ['/crm/v3/properties/contacts/batch/create', { inputs: [] }],
      ['/crm/v3/properties/contacts/batch/create', { inputs: [text('fine'), { ...text('bad'), type: 'money' }] }],
      [
        '/crm/v3/properties/contacts/batch/create',
        { inputs: [text('fine'), { ...select('bad'), options: [{ value: 'a' }] }] },
      ],
      ['/crm/v3/properties/contacts/batch/create', {}],
      ['/crm/v3/properties/contacts/batch/read', { inputs: thousand.map((p) => ({ name: p.name })) }],
      ['/crm/v3/properties/contacts/batch/read', { inputs: [{ name: 'x' }], dataSensitivity: 'secret' }],
      ['/crm/v3/properties/contacts/batch/archive', { inputs: thousand.map((p) => ({ name: p.name })) }],
      ['/crm/v3/properties/contacts/batch/archive', { inputs: [{ nom: 'x' }] }],
      ['/crm/v3/properties/contacts/batch/archive', { inputs: [{ name: 'email' }] }],
      ['/crm/v3/properties/contacts/groups', { name: 'Bad Name!', label: 'x' }],
      ['/crm/v3/properties/contacts/groups', { label: 'x' }],
    ] as const) {
      expectError(await call(token, 'POST', path, body), 400, 'VALIDATION_ERROR');
    }
    expect((await call(token, 'GET', '/crm/v3/properties/contacts')).body.results).toHaveLength(before);

    const dup = ok(
      await call(token, 'POST', '/crm/v3/properties/contacts/batch/create', {
        inputs: [text('twin'), text('twin'), text('email')],
      }),
      207,
      V3,
      'POST',
      '/{objectType}/batch/create',
    );
    expect(dup.results.map((p: { name: string }) => p.name)).toEqual(['twin']);
    expect(dup.errors.map((e: Json) => [e.category, e.context.inputIndex[0], e.context.propertyName[0]])).toEqual([
      ['CONFLICT', '1', 'twin'],
      ['CONFLICT', '2', 'email'],
    ]);
  });

  it('groups: patch and delete of unknown groups, bad bodies', async () => {
    expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/groups/nope', { label: 'x' }),
      404,
      'OBJECT_NOT_FOUND',
    );
    expectError(await call(token, 'DELETE', '/crm/v3/properties/contacts/groups/nope'), 404, 'OBJECT_NOT_FOUND');
    expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/groups/contactinformation', { label: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    await call(token, 'POST', '/crm/v3/properties/contacts/groups', { name: 'mine', label: 'Mine' });
    expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/groups/mine', { displayOrder: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(token, 'PATCH', '/crm/v3/properties/contacts/groups/mine', { label: '' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(token, 'GET', `/crm/v3/properties/contacts/groups/${'x'.repeat(300)}`),
      400,
      'VALIDATION_ERROR',
    );
  });
});
