import type { LightMyRequestResponse } from 'fastify';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { validateComponent, validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * HubSpot's property rules, at every version of the properties and schemas APIs: formulas parsed
 * and checked against the object's properties, at most 10 unique-value properties per object,
 * display hints and sensitivity stored and returned, who last changed a property, and HubSpot's
 * own properties on custom objects. Every success body is checked against its version's spec.
 */
const VERSIONS = [
  { name: 'v3', base: '/crm/v3/properties', file: 'v3/properties.json', created: 201, partial: 207 },
  { name: '2026-03', base: '/crm/properties/2026-03', file: '2026-03/properties.json', created: 201, partial: 207 },
  { name: '2026-09', base: '/crm/properties/2026-09', file: '2026-09/properties.json', created: 200, partial: 200 },
] as const;
const SCHEMA_VERSIONS = [
  { name: 'v3', base: '/crm-object-schemas/v3/schemas', file: 'v3/schemas.json' },
  { name: '2026-03', base: '/crm-object-schemas/2026-03/schemas', file: '2026-03/schemas.json' },
  { name: '2026-09', base: '/crm-object-schemas/2026-09/schemas', file: '2026-09/schemas.json' },
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, checked against the spec
type Json = any;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
}, 30_000);
afterAll(() => t.close());

async function account(userId = 21): Promise<{ hubId: number; token: (user?: number) => string }> {
  const { hubId } = await createAccount(t, { tier: 'enterprise' });
  return {
    hubId,
    token: (user = userId) => mintLimitsToken(t, { hubId, userId: user, scopes: LIMITS_TEST_SCOPES }),
  };
}

async function call(token: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const raw: LightMyRequestResponse = await t.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  return { status: raw.statusCode, body: (raw.body === '' ? undefined : raw.json()) as Json };
}

function ok(r: { status: number; body: Json }, status: number, file: string, method: string, path: string): Json {
  expect({ status: r.status, body: r.body }).toMatchObject({ status });
  expect(validateResponse(file, method, path, r.body, String(status))).toEqual([]);
  return r.body;
}

function refused(r: { status: number; body: Json }, field: string, code?: string): Json {
  expect({ status: r.status, category: r.body?.category }).toEqual({ status: 400, category: 'VALIDATION_ERROR' });
  expect(validateComponent('v3/properties.json', 'Error', r.body)).toEqual([]);
  expect(r.body.errors.map((e: { in: string }) => e.in)).toContain(field);
  if (code) expect(r.body.errors.find((e: { in: string }) => e.in === field).code).toBe(code);
  return r.body;
}

const calc = (name: string, calculationFormula: string, type = 'number') => ({
  name,
  label: name,
  type,
  fieldType: 'calculation_equation',
  groupName: 'dealinformation',
  calculationFormula,
});
const text = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  label: name,
  type: 'string',
  fieldType: 'text',
  groupName: 'dealinformation',
  ...extra,
});
const number = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  label: name,
  type: 'number',
  fieldType: 'number',
  groupName: 'dealinformation',
  ...extra,
});

describe.each(VERSIONS)('properties at $base', (v) => {
  /** The operation's path in the version's spec. */
  const spec = (rest = '') => `${v.base}/{objectType}${rest}`;

  it('calculationFormula is parsed and checked against the object’s properties (400 naming the problem)', async () => {
    const { token } = await account();
    const tk = token();
    ok(await call(tk, 'POST', `${v.base}/deals`, text('region')), 201, v.file, 'POST', spec());
    ok(
      await call(tk, 'POST', `${v.base}/deals`, { ...text('amount_flag'), type: 'bool', fieldType: 'booleancheckbox' }),
      201,
      v.file,
      'POST',
      spec(),
    );
    for (const [formula, problem] of [
      [')))( not a formula +', /unexpected '\)'/],
      ['no_such_property * 2', /property 'no_such_property' does not exist/],
      ['region * 2', /property 'region' is of type string/],
      ['amount + "x"', /'\+' needs numbers/],
      ['if amount > 1 else 1', /expected 'then'/],
      // HubSpot's page: a string plus a number is refused (number_to_string makes it valid), at its position.
      ['"Number of cars: " + amount', /'\+' needs numbers or strings on both sides.*\(at character 22\)/],
      ['2string(region)', /needs numbers, not a string \(at character 2\)/],
      ['nope(amount)', /unknown function 'nope'/],
    ] as const) {
      const body = refused(
        await call(tk, 'POST', `${v.base}/deals`, calc('calc_bad', formula)),
        'calculationFormula',
        'INVALID_FORMULA',
      );
      expect(body.errors[0].message).toMatch(problem);
    }
    // The result must fit the property's type.
    refused(await call(tk, 'POST', `${v.base}/deals`, calc('calc_str', 'amount * 2', 'string')), 'calculationFormula');
    // In a batch, the bad formula is that input's error only.
    const batch = ok(
      await call(tk, 'POST', `${v.base}/deals/batch/create`, {
        inputs: [calc('calc_ok', 'amount * 2'), calc('calc_no', 'missing_one + 1')],
      }),
      v.partial,
      v.file,
      'POST',
      spec('/batch/create'),
    );
    expect(batch.results.map((p: { name: string }) => p.name)).toEqual(['calc_ok']);
    expect(batch.errors[0].errors[0]).toMatchObject({ in: 'inputs[1].calculationFormula', code: 'INVALID_FORMULA' });
    // Good formulas: operators, functions, property reads of each type, the statement form.
    for (const [name, formula, type] of [
      ['calc_num', 'round_nearest(max(amount, 0) * 1.2, 2) - 1', 'number'],
      ['calc_txt', 'concatenate(string(region), " / ", string(dealname))', 'string'],
      ['calc_if', 'if amount > 1000 then "big" elseif amount > 10 then "mid" else "small" endif', 'string'],
      ['calc_bool', 'is_present(string(region)) and not (amount < 0)', 'bool'],
      // As HubSpot's "Calculation property syntax" page writes them: endif optional, '+' on strings,
      // equals, prefix multiplication, case-insensitive keywords and names; and HubSpot's own
      // amount_in_home_currency formula.
      ['calc_home', 'if is_present(hs_exchange_rate) then (amount * hs_exchange_rate) else amount', 'number'],
      ['calc_cars', '"Number of cars: " + number_to_string(amount)', 'string'],
      ['calc_equals', 'amount + 1 - 100.2amount * 150 equals 150 - 230', 'bool'],
      ['calc_case', 'If Amount > 1 ThEn 10AMOUNT ElseIf bool(Amount_Flag) then 1', 'number'],
    ] as const) {
      const created = ok(
        await call(tk, 'POST', `${v.base}/deals`, calc(name, formula, type)),
        201,
        v.file,
        'POST',
        spec(),
      );
      expect(created).toMatchObject({ name, calculationFormula: formula, calculated: true });
    }
  });

  it('at most 10 unique-value properties per object: a batch of 11 creates 10 and refuses 1 with the ceiling shape', async () => {
    const { token } = await account();
    const tk = token();
    const inputs = Array.from({ length: 11 }, (_, i) => text(`uid_${i}`, { hasUniqueValue: true }));
    const batch = ok(
      await call(tk, 'POST', `${v.base}/deals/batch/create`, { inputs }),
      v.partial,
      v.file,
      'POST',
      spec('/batch/create'),
    );
    expect(batch.results).toHaveLength(10);
    expect(batch.numErrors).toBe(1);
    expect(batch.errors[0]).toMatchObject({
      category: 'VALIDATION_ERROR',
      context: { limit: ['10'], usage: ['10'], inputIndex: ['10'], propertyName: ['uid_10'] },
      errors: [{ code: 'LIMIT_EXCEEDED', subCategory: 'LIMITS.UNIQUE_VALUE_PROPERTIES_LIMIT_EXCEEDED' }],
    });
    // One more on its own: 400 with the same subCategory; a plain property and another object are fine.
    const single = refused(
      await call(tk, 'POST', `${v.base}/deals`, text('uid_x', { hasUniqueValue: true })),
      'hasUniqueValue',
    );
    expect(single).toMatchObject({
      subCategory: 'LIMITS.UNIQUE_VALUE_PROPERTIES_LIMIT_EXCEEDED',
      context: { limit: ['10'] },
    });
    ok(await call(tk, 'POST', `${v.base}/deals`, text('plain_x')), 201, v.file, 'POST', spec());
    ok(
      await call(
        tk,
        'POST',
        `${v.base}/contacts`,
        text('uid_x', { hasUniqueValue: true, groupName: 'contactinformation' }),
      ),
      201,
      v.file,
      'POST',
      spec(),
    );
  });

  it('display hints and dataSensitivity are stored and returned; bad values are 400', async () => {
    const { token } = await account();
    const tk = token();
    const money = ok(
      await call(
        tk,
        'POST',
        `${v.base}/deals`,
        number('net_value', {
          numberDisplayHint: 'currency',
          showCurrencySymbol: true,
          currencyPropertyName: 'deal_currency_code',
        }),
      ),
      201,
      v.file,
      'POST',
      spec(),
    );
    expect(money).toMatchObject({
      numberDisplayHint: 'currency',
      showCurrencySymbol: true,
      currencyPropertyName: 'deal_currency_code',
      dataSensitivity: 'non_sensitive',
    });
    const mail = ok(
      await call(
        tk,
        'POST',
        `${v.base}/deals`,
        text('buyer_mail', { textDisplayHint: 'email', dataSensitivity: 'sensitive' }),
      ),
      201,
      v.file,
      'POST',
      spec(),
    );
    expect(mail).toMatchObject({ textDisplayHint: 'email', dataSensitivity: 'sensitive' });
    // Read back, listed by sensitivity, patched.
    expect(ok(await call(tk, 'GET', `${v.base}/deals/net_value`), 200, v.file, 'GET', spec('/{propertyName}'))).toEqual(
      money,
    );
    const sensitive = ok(
      await call(tk, 'GET', `${v.base}/deals?dataSensitivity=sensitive`),
      200,
      v.file,
      'GET',
      spec(),
    );
    expect(sensitive.results.map((p: { name: string }) => p.name)).toEqual(['buyer_mail']);
    const plain = ok(await call(tk, 'GET', `${v.base}/deals`), 200, v.file, 'GET', spec());
    expect(plain.results.map((p: { name: string }) => p.name)).not.toContain('buyer_mail');
    expect(
      ok(
        await call(tk, 'GET', `${v.base}/deals/buyer_mail?dataSensitivity=sensitive`),
        200,
        v.file,
        'GET',
        spec('/{propertyName}'),
      ),
    ).toMatchObject({ textDisplayHint: 'email' });
    const patched = ok(
      await call(tk, 'PATCH', `${v.base}/deals/net_value`, {
        numberDisplayHint: 'percentage',
        showCurrencySymbol: false,
      }),
      200,
      v.file,
      'PATCH',
      spec('/{propertyName}'),
    );
    expect(patched).toMatchObject({
      numberDisplayHint: 'percentage',
      showCurrencySymbol: false,
      currencyPropertyName: 'deal_currency_code',
    });

    // Bad values: enums, booleans, and hints on a type they do not describe.
    for (const [body, field] of [
      [number('bad_1', { numberDisplayHint: 'money' }), 'numberDisplayHint'],
      [text('bad_2', { textDisplayHint: 'shouting' }), 'textDisplayHint'],
      [number('bad_3', { showCurrencySymbol: 'yes' }), 'showCurrencySymbol'],
      [number('bad_4', { currencyPropertyName: 42 }), 'currencyPropertyName'],
      [text('bad_5', { dataSensitivity: 'secret' }), 'dataSensitivity'],
      [text('bad_6', { numberDisplayHint: 'currency' }), 'numberDisplayHint'],
      [number('bad_7', { textDisplayHint: 'email' }), 'textDisplayHint'],
      [text('bad_8', { showCurrencySymbol: true }), 'showCurrencySymbol'],
    ] as const) {
      refused(await call(tk, 'POST', `${v.base}/deals`, body), field);
    }
    refused(await call(tk, 'PATCH', `${v.base}/deals/net_value`, { numberDisplayHint: 'money' }), 'numberDisplayHint');
    refused(
      await call(tk, 'PATCH', `${v.base}/deals/buyer_mail`, { numberDisplayHint: 'currency' }),
      'numberDisplayHint',
    );
  });

  it('updatedUserId names who last changed the property; createdUserId stays the creator', async () => {
    const { token } = await account(21);
    const created = ok(
      await call(token(21), 'POST', `${v.base}/deals`, text('owner_note')),
      201,
      v.file,
      'POST',
      spec(),
    );
    expect(created).toMatchObject({ createdUserId: '21', updatedUserId: '21' });
    const patched = ok(
      await call(token(77), 'PATCH', `${v.base}/deals/owner_note`, { label: 'Owner note' }),
      200,
      v.file,
      'PATCH',
      spec('/{propertyName}'),
    );
    expect(patched).toMatchObject({ createdUserId: '21', updatedUserId: '77', label: 'Owner note' });
    const read = ok(
      await call(token(21), 'GET', `${v.base}/deals/owner_note`),
      200,
      v.file,
      'GET',
      spec('/{propertyName}'),
    );
    expect(read).toMatchObject({ createdUserId: '21', updatedUserId: '77' });
    // A refused patch changes nothing.
    refused(await call(token(88), 'PATCH', `${v.base}/deals/owner_note`, { label: '' }), 'label');
    expect((await call(token(21), 'GET', `${v.base}/deals/owner_note`)).body.updatedUserId).toBe('77');
  });
});

describe.each(SCHEMA_VERSIONS)('custom object schemas at $base list HubSpot’s default properties', (v) => {
  it('hs_object_id, hs_createdate, … marked HubSpot-defined, not archivable, not counted', async () => {
    const { token } = await account();
    const tk = token();
    const egg = {
      name: `machine_${v.name.replace('-', '_')}`,
      labels: { singular: 'Machine', plural: 'Machines' },
      primaryDisplayProperty: 'serial',
      secondaryDisplayProperties: [],
      searchableProperties: ['serial'],
      requiredProperties: ['serial'],
      allowsSensitiveProperties: false,
      shouldCreateSameObjectAssociation: false,
      properties: [
        {
          name: 'serial',
          label: 'Serial',
          type: 'string',
          fieldType: 'text',
          textDisplayHint: 'unformatted_single_line',
        },
        { name: 'weight', label: 'Weight', type: 'number', fieldType: 'number', numberDisplayHint: 'formatted' },
      ],
      associatedObjects: ['CONTACT'],
    };
    const schema = ok(await call(tk, 'POST', v.base, egg), 201, v.file, 'POST', v.base);
    const defaults = schema.properties.filter((p: { hubspotDefined?: boolean }) => p.hubspotDefined);
    expect(defaults.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining([
        'hs_object_id',
        'hs_createdate',
        'hs_lastmodifieddate',
        'hs_created_by_user_id',
        'hs_updated_by_user_id',
      ]),
    );
    for (const p of defaults) {
      expect(p.modificationMetadata).toMatchObject({ archivable: false, readOnlyDefinition: true });
      expect(p.groupName).toBe(`${egg.name}_information`);
    }
    expect(
      schema.properties
        .filter((p: { hubspotDefined?: boolean }) => !p.hubspotDefined)
        .map((p: { name: string }) => p.name),
    ).toEqual(['serial', 'weight']);
    expect(schema.properties.find((p: { name: string }) => p.name === 'weight')).toMatchObject({
      numberDisplayHint: 'formatted',
    });
    const read = ok(
      await call(tk, 'GET', `${v.base}/${schema.objectTypeId}`),
      200,
      v.file,
      'GET',
      `${v.base}/{objectType}`,
    );
    expect(read.properties).toEqual(schema.properties);

    // The properties API lists and reads them too; they cannot be archived or changed; usage counts only `serial`.
    const props = ok(
      await call(tk, 'GET', `/crm/v3/properties/${schema.objectTypeId}`),
      200,
      'v3/properties.json',
      'GET',
      '/crm/v3/properties/{objectType}',
    );
    expect(props.results.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['hs_object_id', 'serial']),
    );
    const refusedArchive = await t.inject({
      method: 'DELETE',
      url: `/crm/v3/properties/${schema.objectTypeId}/hs_createdate`,
      headers: { authorization: `Bearer ${tk}` },
    });
    expect(refusedArchive.statusCode).toBe(400);
    expect(refusedArchive.json()).toMatchObject({ category: 'VALIDATION_ERROR' });
    const refusedPatch = await call(tk, 'PATCH', `/crm/v3/properties/${schema.objectTypeId}/hs_object_id`, {
      label: 'x',
    });
    expect(refusedPatch).toMatchObject({ status: 400, body: { category: 'VALIDATION_ERROR' } });
    const usage = ok(
      await call(tk, 'GET', '/crm/v3/limits/custom-properties'),
      200,
      'limitsTracking.json',
      'GET',
      '/crm/v3/limits/custom-properties',
    );
    expect(usage.byObjectType).toContainEqual(expect.objectContaining({ objectTypeId: schema.objectTypeId, usage: 2 }));
    // A formula on the custom object may read them.
    const formula = await call(tk, 'POST', `/crm/v3/properties/${schema.objectTypeId}`, {
      ...calc('age_ms', 'hs_lastmodifieddate - hs_createdate'),
      groupName: `${egg.name}_information`,
    });
    expect(formula.status).toBe(201);
    // Bad input: a schema property may not take a HubSpot-defined name.
    const clash = await call(tk, 'POST', v.base, {
      ...egg,
      name: `${egg.name}_two`,
      properties: [...egg.properties, { name: 'hs_object_id', label: 'Mine', type: 'string', fieldType: 'text' }],
    });
    expect(clash.status).toBe(400);
    // Bad display hints on a schema's property: 400 naming the field.
    const badHint = await call(tk, 'POST', v.base, {
      ...egg,
      name: `${egg.name}_three`,
      properties: [
        ...egg.properties,
        { name: 'note', label: 'Note', type: 'string', fieldType: 'text', textDisplayHint: 'shouting' },
      ],
    });
    refused(badHint, 'properties.2.textDisplayHint');
  });
});
