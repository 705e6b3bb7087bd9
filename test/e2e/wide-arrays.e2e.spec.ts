import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { RECORDS_TEST_SCOPES } from '../support/records-tokens';
import { arrayPaths, type OpenApiComponents, type Schema, wideBody } from '../support/wide-arrays';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 26, item 1: a JSON array far longer than its field allows (`{"inputs":[{}]×30000}`) is
 * refused with one short 400 naming the field, before any element is validated: never thousands
 * of errors[] entries, never an 11 MB body, never a 500 from a stack overflow. Every array field
 * of every JSON request body the service documents (its own OpenAPI document, built from the DTOs)
 * is tried, nested ones included, on every version of every path.
 */
const WIDE = 30_000;

interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface OpenApi extends OpenApiComponents {
  paths: Record<string, Record<string, Operation>>;
}

describe('wide JSON arrays (issue 26, item 1)', () => {
  let t: TestApp;
  let doc: OpenApi;
  let hubId: number;
  let appId: number;
  let bearer: string;
  let hapikey: string;
  let appToken: string;

  beforeAll(async () => {
    t = await startTestApp();
    hubId = (await createAccount(t)).hubId;
    const app = await createApp(t, { developerHubId: hubId });
    appId = app.appId;
    // The webhooks journal takes an app token (client_credentials) with its scopes.
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope:
        'webhooks-journal-data-access webhooks-journal-subscription-management webhooks-journal-snapshot-management',
    });
    appToken = (
      await t.inject({
        method: 'POST',
        url: '/oauth/2026-03/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form.toString(),
      })
    ).json().access_token;
    bearer = mintLimitsToken(t, {
      hubId,
      appId,
      scopes: [...new Set([...LIMITS_TEST_SCOPES, ...RECORDS_TEST_SCOPES])],
    });
    hapikey = (await t.admin('POST', `/admin/v1/accounts/${hubId}/developer-api-keys`)).json().developerApiKey;
    doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
  });
  afterAll(() => t.close());

  /** The request with the credential its route family takes. */
  function request(method: string, template: string, payload: unknown) {
    const url = template
      .replace('{appId}', String(appId))
      .replace('{hubId}', String(hubId))
      // Pipelines exist for deals and tickets only.
      .replace('{objectType}', template.includes('/pipelines') ? 'deals' : 'contacts')
      .replace(/\{[A-Za-z]+\}/g, 'x1');
    const headers: Record<string, string> = {};
    let query = '';
    if (url.startsWith('/admin/')) headers.authorization = `Bearer ${t.adminKey}`;
    else if (url.includes('/cards-dev/') || /^\/(app-)?webhooks\//.test(url)) query = `?hapikey=${hapikey}`;
    else if (url.startsWith('/webhooks-journal/')) headers.authorization = `Bearer ${appToken}`;
    else headers.authorization = `Bearer ${bearer}`;
    return t.inject({ method: method.toUpperCase() as 'POST', url: url + query, headers, payload: payload as object });
  }

  function cases(): Array<[string, string, Array<string | number>]> {
    const out: Array<[string, string, Array<string | number>]> = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (!schema) continue;
        for (const field of arrayPaths(doc, schema)) out.push([method, path, field]);
      }
    }
    return out;
  }

  it('covers the array fields the issue names (the document is read, not a hand-made list)', () => {
    const named = new Set(cases().map(([m, p, f]) => `${m} ${p} ${f.join('.')}`));
    for (const expected of [
      'post /crm/v3/properties/{objectType}/batch/create inputs',
      'post /crm/v3/properties/{objectType}/batch/create inputs.0.options',
      'post /crm/properties/2026-03/{objectType}/batch/create inputs',
      'post /crm/v3/properties/{objectType}/batch/read inputs',
      'post /crm/v3/properties/{objectType}/batch/archive inputs',
      'post /crm/v3/properties/{objectType} options',
      'patch /crm/v3/properties/{objectType}/{propertyName} options',
      'post /crm/v3/schemas properties',
      'post /crm/v3/schemas associatedObjects',
      'post /crm/v3/schemas properties.0.options',
      'post /crm/v3/extensions/cards-dev/{appId} fetch.objectTypes',
      'post /crm/v3/extensions/cards-dev/{appId} fetch.objectTypes.0.propertiesToSend',
      'post /crm/v3/extensions/cards-dev/{appId} actions.baseUrls',
      'patch /crm/v3/extensions/cards-dev/{appId}/{cardId} display.properties',
      'post /crm/extensions/cards-dev/2026-03/{appId} fetch.objectTypes',
      'post /crm/v3/schemas/batch/read inputs',
      'patch /crm/v3/schemas/{objectType} searchableProperties',
      'post /admin/v1/apps/{appId}/app-cards objectTypes',
      'post /admin/v1/apps/{appId}/installs scopes',
      'post /crm/v3/extensions/cards-dev/{appId} display.properties',
      'post /admin/v1/apps redirectUrls',
      'post /admin/v1/users hubIds',
    ]) {
      expect(named).toContain(expected);
    }
  });

  it('each array field, 30,000 elements long: 400 naming the field, a bounded body, nothing validated inside', async () => {
    const all = cases();
    expect(all.length).toBeGreaterThan(90);
    const failures: string[] = [];
    for (const [method, path, field] of all) {
      const r = await request(method, path, wideBody(field, WIDE));
      const body = r.json() as { category?: string; errors?: Array<{ in: string; code: string }> };
      const name = field.join('.');
      const ok =
        r.statusCode === 400 &&
        body.category === 'VALIDATION_ERROR' &&
        r.body.length < 2048 &&
        (body.errors ?? []).length <= 20 &&
        // TOO_MANY_INPUTS: HubSpot's own refusal of a records batch past 100 inputs, before any field.
        body.errors?.some((e) => e.in === name && ['TOO_MANY_ITEMS', 'TOO_MANY_INPUTS'].includes(e.code)) === true &&
        // No element of the wide array was validated (an element's error would name `field.0…`).
        !body.errors?.some((e) => e.in.startsWith(`${name}.`));
      if (!ok) failures.push(`${method.toUpperCase()} ${path} ${name}: ${r.statusCode} ${r.body.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  }, 60_000); // about 100 requests of 90 KB each: seconds on 2 shared cores, not the 5 s default

  it('the issue’s own bodies: ×30,000 inputs on the v3 and 2026-03 batches answer 400, a few hundred bytes', async () => {
    for (const url of ['/crm/v3/properties/contacts/batch/create', '/crm/properties/2026-03/contacts/batch/create']) {
      const r = await t.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${bearer}` },
        payload: { inputs: Array.from({ length: WIDE }, () => ({})) },
      });
      expect(r.statusCode).toBe(400);
      expect(r.body.length).toBeLessThan(1024);
      expect(r.json()).toMatchObject({
        category: 'VALIDATION_ERROR',
        errors: [{ in: 'inputs', code: 'TOO_MANY_ITEMS', message: 'inputs must contain no more than 100 elements' }],
      });
    }
  });

  it('bodies inside every per-field bound but with too many elements together are refused as a whole', async () => {
    const property = { name: 'p', label: 'P', type: 'enumeration', fieldType: 'select', groupName: 'g' };
    const r = await t.inject({
      method: 'POST',
      url: '/crm/v3/properties/contacts/batch/create',
      headers: { authorization: `Bearer ${bearer}` },
      payload: { inputs: Array.from({ length: 80 }, () => ({ ...property, options: Array(1000).fill({}) })) },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ errors: [{ in: 'body', code: 'TOO_MANY_ITEMS' }] });
  });

  it('many bad elements within the bounds: at most 20 errors[] entries, the message counts the rest', async () => {
    const r = await t.inject({
      method: 'POST',
      url: '/crm/v3/properties/contacts/batch/create',
      headers: { authorization: `Bearer ${bearer}` },
      payload: { inputs: Array.from({ length: 100 }, () => ({})) },
    });
    expect(r.statusCode).toBe(400);
    const body = r.json() as { message: string; errors: Array<{ in: string }> };
    expect(body.errors).toHaveLength(20);
    expect(body.errors[0]!.in).toBe('inputs.0.name');
    expect(body.message).toMatch(/ and 480 more$/);
    expect(r.body.length).toBeLessThan(4096);
  });
});
