import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * Record ceilings (issue 36): the limits GET shows the tier's ceilings and the account's overrides
 * (set through the admin API, as the other limits); creates past the ceiling are refused, a batch
 * keeps the inputs that fit and reports the others.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

async function call(token: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const r = await t.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: r.statusCode, body: r.body === '' ? undefined : (r.json() as Record<string, any>) }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The limits GET as `{ objectTypeId: limit }` plus the custom objects' overall limit. */
async function ceilings(token: string, path = '/crm/v3/limits/records') {
  const r = await call(token, 'GET', path);
  expect(r.status).toBe(200);
  const types = r.body!.hubspotDefinedObjectTypes as Array<{ objectTypeId: string; limit: number; usage: number }>;
  return {
    byType: Object.fromEntries(types.map((x) => [x.objectTypeId, [x.usage, x.limit]])),
    custom: r.body!.customObjectTypes.overallLimit as number,
  };
}

describe('record ceilings per tier with admin overrides', () => {
  it('the limits GET shows the tier’s ceilings, then the account’s overrides; null clears one', async () => {
    const free = (await createAccount(t, { tier: 'free' })).hubId;
    const token = mintRecordsToken(t, free);
    expect(await ceilings(token)).toEqual({
      byType: { '0-1': [0, 15_000_000], '0-2': [0, 15_000_000], '0-3': [0, 15_000_000], '0-5': [0, 15_000_000] },
      custom: 0,
    });
    const put = await t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { records: 2, customObjectRecords: 7 });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      tierLimits: { records: 15_000_000, customObjectRecords: 0 },
      overrides: { records: 2, customObjectRecords: 7 },
      effectiveLimits: { records: 2, customObjectRecords: 7 },
    });
    for (const path of ['/crm/v3/limits/records', '/crm/limits/2026-03/records', '/crm/limits/2026-09/records'])
      expect(await ceilings(token, path)).toEqual({
        byType: { '0-1': [0, 2], '0-2': [0, 2], '0-3': [0, 2], '0-5': [0, 2] },
        custom: 7,
      });
    await t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { records: null });
    expect((await ceilings(token)).byType['0-1']).toEqual([0, 15_000_000]);
    expect(
      (await t.admin('PUT', `/admin/v1/accounts/${free}/limits`, { records: -1 })).json() as Record<string, unknown>,
    ).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: 'records' }] });
  });

  it('a create past the ceiling is refused; a batch keeps the inputs that fit (207), archiving frees a slot', async () => {
    const hubId = (await createAccount(t)).hubId;
    const token = mintRecordsToken(t, hubId);
    await t.admin('PUT', `/admin/v1/accounts/${hubId}/limits`, { records: 3 });
    const contact = (email: string) => ({ properties: { email } });

    const first = await call(token, 'POST', '/crm/v3/objects/contacts', contact('c1@example.com'));
    expect(first.status).toBe(201);
    const batch = await call(token, 'POST', '/crm/v3/objects/contacts/batch/create', {
      inputs: [contact('c2@example.com'), contact('c3@example.com'), contact('c4@example.com')],
    });
    expect(batch.status).toBe(207);
    expect(batch.body!.results.map((r: { properties: { email: string } }) => r.properties.email).sort()).toEqual([
      'c2@example.com',
      'c3@example.com',
    ]);
    expect(batch.body).toMatchObject({
      numErrors: 1,
      errors: [
        {
          category: 'VALIDATION_ERROR',
          context: { inputIndex: ['2'], limit: ['3'], usage: ['3'] },
          errors: [{ code: 'LIMIT_EXCEEDED', subCategory: 'LIMITS.RECORDS_LIMIT_EXCEEDED' }],
        },
      ],
    });

    const refused = await call(token, 'POST', '/crm/objects/2026-03/contacts', contact('c5@example.com'));
    expect(refused).toMatchObject({
      status: 400,
      body: {
        category: 'VALIDATION_ERROR',
        subCategory: 'LIMITS.RECORDS_LIMIT_EXCEEDED',
        message:
          'You have reached your limit of contacts: 3 of 3 in use (limit set for this account). Cannot create another record; archive or delete unused contacts or ask for a higher limit.',
        context: { limit: ['3'], usage: ['3'], tier: ['enterprise'] },
      },
    });
    // Upsert: the existing record is updated, a new one is refused.
    const upsert = await call(token, 'POST', '/crm/v3/objects/contacts/batch/upsert', {
      inputs: [
        { id: 'c1@example.com', idProperty: 'email', properties: { firstname: 'Ann' } },
        { id: 'c6@example.com', idProperty: 'email', properties: {} },
      ],
    });
    expect(upsert).toMatchObject({
      status: 207,
      body: {
        results: [{ new: false, properties: { firstname: 'Ann' } }],
        errors: [{ context: { inputIndex: ['1'] }, errors: [{ subCategory: 'LIMITS.RECORDS_LIMIT_EXCEEDED' }] }],
      },
    });
    // 2026-09 answers a partial batch at its success status.
    const dated = await call(token, 'POST', '/crm/objects/2026-09/contacts/batch/create', {
      inputs: [contact('c7@example.com')],
    });
    expect(dated).toMatchObject({ status: 201, body: { results: [], numErrors: 1 } });
    // Another type has its own ceiling.
    expect((await call(token, 'POST', '/crm/v3/objects/companies', { properties: { name: 'A' } })).status).toBe(201);
    // Usage counts non-archived records: archiving one frees a slot.
    expect((await call(token, 'DELETE', `/crm/v3/objects/contacts/${first.body!.id}`)).status).toBe(204);
    expect((await call(token, 'POST', '/crm/v3/objects/contacts', contact('c8@example.com'))).status).toBe(201);
    expect((await ceilings(token)).byType['0-1']).toEqual([3, 3]);
    // An override below the usage: shown above 100 %, creates refused.
    await t.admin('PUT', `/admin/v1/accounts/${hubId}/limits`, { records: 1 });
    const over = await call(token, 'GET', '/crm/v3/limits/records');
    expect(
      over.body!.hubspotDefinedObjectTypes.find((x: { objectTypeId: string }) => x.objectTypeId === '0-1'),
    ).toMatchObject({ usage: 3, limit: 1, percentage: 300 });
    expect((await call(token, 'POST', '/crm/v3/objects/contacts', contact('c9@example.com'))).status).toBe(400);
  });
});
