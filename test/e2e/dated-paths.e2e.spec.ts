import { Client } from '@hubspot/api-client';
import { checkCardsResponseIn } from '../support/cards-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { validateResponse } from '../support/limits-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * HubSpot's date-versioned paths (2026-03, 2026-09) of cards-dev, limits, properties and schemas,
 * over real HTTP on 127.0.0.1. Success bodies are checked against our wire schema of that version
 * (test/support/wire-schemas.ts), under the path as HubSpot's spec (e.g. 2026-03/limitsTracking.json) names it.
 */
const VERSIONS = ['2026-03', '2026-09'] as const;
type Version = (typeof VERSIONS)[number];

let t: TestApp;
let devHubId: number;
let appId: number;
let cardsToken: string;
let crmHubId: number;
let crmToken: string;

interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(method: string, path: string, token: string | null, payload?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${t.url}${path}`, {
    method,
    headers,
    ...(payload !== undefined ? { body: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
}

/** A HubSpot Error body with the given status and category (and never a 5xx). */
function expectError(r: Answer, status: number, category: string) {
  expect({ status: r.status, category: r.body?.category }).toEqual({ status, category });
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  expect(typeof r.body.message).toBe('string');
  return r.body as { errors?: Array<{ in?: string; code?: string }>; context?: Record<string, string[]> };
}

const fieldsOf = (body: { errors?: Array<{ in?: string }> }) => (body.errors ?? []).map((e) => e.in);

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  devHubId = (await createAccount(t)).hubId;
  appId = (await createApp(t, { developerHubId: devHubId })).appId;
  cardsToken = mintCardsToken(t, { hubId: devHubId, appId, userId: 77 });
  crmHubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  crmToken = mintLimitsToken(t, { hubId: crmHubId, scopes: LIMITS_TEST_SCOPES });
});
afterAll(() => t.close());

describe('cards-dev at /crm/extensions/cards-dev/{version}', () => {
  const card = (cardType?: 'EXTERNAL') => ({
    title: 'PetSpot',
    fetch: {
      targetUrl: 'https://www.example.com/hubspot/target',
      objectTypes: [{ name: 'contacts', propertiesToSend: ['email'] }],
      ...(cardType ? { cardType } : {}),
    },
    display: { properties: [{ name: 'pet_name', label: 'Pets Name', dataType: 'STRING', options: [] }] },
    actions: { baseUrls: ['https://www.example.com/hubspot'] },
  });

  describe.each(VERSIONS)('%s', (version: Version) => {
    const base = `/crm/extensions/cards-dev/${version}`;
    const file = `${version}/publicAppCrmCards.json`;
    const check = (method: string, specPath: string, status: number, body: unknown) =>
      expect(checkCardsResponseIn(file, method, `${base}${specPath}`, status, body)).toEqual([]);

    it('serves sample-response, create (201, Location on the dated path), list, get, patch, delete', async () => {
      const sample = await call('GET', `${base}/sample-response`, null);
      expect(sample.status).toBe(200);
      check('GET', '/sample-response', 200, sample.body);

      const created = await call('POST', `${base}/${appId}`, cardsToken, card('EXTERNAL'));
      expect(created.status).toBe(201);
      check('POST', '/{appId}', 201, created.body);
      const cardId = created.body.id as string;
      expect(created.headers.get('location')).toBe(`${base}/${appId}/${cardId}`);

      const list = await call('GET', `${base}/${appId}`, cardsToken);
      expect(list.status).toBe(200);
      check('GET', '/{appId}', 200, list.body);
      expect(list.body.results.map((c: { id: string }) => c.id)).toContain(cardId);

      const one = await call('GET', `${base}/${appId}/${cardId}`, cardsToken);
      expect(one.status).toBe(200);
      check('GET', '/{appId}/{cardId}', 200, one.body);

      const patched = await call('PATCH', `${base}/${appId}/${cardId}`, cardsToken, { title: 'PetSpot 2' });
      expect(patched.status).toBe(200);
      check('PATCH', '/{appId}/{cardId}', 200, patched.body);
      expect(patched.body.title).toBe('PetSpot 2');
      expect(patched.body.auditHistory.map((a: { actionType: string }) => a.actionType)).toEqual(['CREATE', 'UPDATE']);

      const deleted = await call('DELETE', `${base}/${appId}/${cardId}`, cardsToken);
      expect(deleted.status).toBe(204);
      expectError(await call('GET', `${base}/${appId}/${cardId}`, cardsToken), 404, 'OBJECT_NOT_FOUND');
    });

    it('requires fetch.cardType on create (optional at v3)', async () => {
      const body = expectError(await call('POST', `${base}/${appId}`, cardsToken, card()), 400, 'VALIDATION_ERROR');
      expect(body.errors).toEqual([expect.objectContaining({ in: 'fetch.cardType', code: 'REQUIRED' })]);
      const v3 = await call('POST', `/crm/v3/extensions/cards-dev/${appId}`, cardsToken, card());
      expect(v3.status).toBe(201);
    });

    it('answers bad input with HubSpot errors', async () => {
      expectError(await call('GET', `${base}/${appId}`, null), 401, 'INVALID_AUTHENTICATION');
      expect(fieldsOf(expectError(await call('GET', `${base}/abc`, cardsToken), 400, 'VALIDATION_ERROR'))).toEqual([
        'appId',
      ]);
      expect(
        fieldsOf(expectError(await call('GET', `${base}/${appId}/x1`, cardsToken), 400, 'VALIDATION_ERROR')),
      ).toEqual(['cardId']);
      expectError(await call('POST', `${base}/${appId}`, cardsToken, '{"title":'), 400, 'VALIDATION_ERROR');
      expectError(await call('POST', `${base}/${appId}`, cardsToken, '[]'), 400, 'VALIDATION_ERROR');
      const readOnly = mintCardsToken(t, { hubId: devHubId, appId, scopes: ['developers-read'] });
      expectError(await call('POST', `${base}/${appId}`, readOnly, card('EXTERNAL')), 403, 'MISSING_SCOPES');
      expectError(await call('GET', `${base}/${appId}/999999999`, cardsToken), 404, 'OBJECT_NOT_FOUND');
    });
  });

  describe('views/migrate', () => {
    async function legacyAndAppCard() {
      const legacy = await call('POST', `/crm/v3/extensions/cards-dev/${appId}`, cardsToken, card());
      expect(legacy.status).toBe(201);
      const appCard = await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
        title: 'App card',
        objectTypes: ['contacts'],
      });
      expect(appCard.statusCode).toBe(201);
      return { legacyCrmCardId: Number(legacy.body.id), appCardId: Number(appCard.json().id) };
    }

    it('2026-03: allowDuplicateAppCardIds is required; the answer carries the counts', async () => {
      const path = `/crm/extensions/cards-dev/2026-03/${appId}/views/migrate`;
      const ids = await legacyAndAppCard();
      const missing = expectError(await call('POST', path, cardsToken, ids), 400, 'VALIDATION_ERROR');
      expect(missing.errors).toEqual([expect.objectContaining({ in: 'allowDuplicateAppCardIds', code: 'REQUIRED' })]);
      const r = await call('POST', path, cardsToken, { ...ids, allowDuplicateAppCardIds: false });
      expect(r.status).toBe(200);
      expect(
        checkCardsResponseIn(
          '2026-03/publicAppCrmCards.json',
          'POST',
          '/crm/extensions/cards-dev/2026-03/{appId}/views/migrate',
          200,
          r.body,
        ),
      ).toEqual([]);
      expect(r.body).toMatchObject({ totalPortalCount: 0, startedAt: t.clock.now() });
    });

    it('2026-09: no allowDuplicateAppCardIds in the request, `message` alone in the answer', async () => {
      const path = `/crm/extensions/cards-dev/2026-09/${appId}/views/migrate`;
      const ids = await legacyAndAppCard();
      const r = await call('POST', path, cardsToken, ids);
      expect(r.status).toBe(200);
      expect(
        checkCardsResponseIn(
          '2026-09/publicAppCrmCards.json',
          'POST',
          '/crm/extensions/cards-dev/2026-09/{appId}/views/migrate',
          200,
          r.body,
        ),
      ).toEqual([]);
      expect(Object.keys(r.body)).toEqual(['message']);
      expect(r.body.message).toMatch(new RegExp(`legacy CRM card ${ids.legacyCrmCardId}`));
      // A second legacy card onto the same app card: refused, as when allowDuplicateAppCardIds is false.
      const other = await legacyAndAppCard();
      const dup = await call('POST', path, cardsToken, { ...other, appCardId: ids.appCardId });
      expect(dup.body.errors).toEqual([expect.objectContaining({ code: 'DUPLICATE_APP_CARD_ID' })]);
      expectError(dup, 400, 'VALIDATION_ERROR');
      expectError(await call('POST', path, cardsToken, { appCardId: 'x' }), 400, 'VALIDATION_ERROR');
    });
  });
});

describe('limits at /crm/limits/{version}', () => {
  describe.each(VERSIONS)('%s', (version: Version) => {
    it.each(['calculated-properties', 'custom-object-types', 'custom-properties'])(
      'GET %s conforms to the version’s spec',
      async (endpoint) => {
        const path = `/crm/limits/${version}/${endpoint}`;
        const r = await call('GET', path, crmToken);
        expect(r.status).toBe(200);
        expect(validateResponse(`${version}/limitsTracking.json`, 'GET', path, r.body)).toEqual([]);
        // The same numbers as at v3.
        expect(r.body).toEqual((await call('GET', `/crm/v3/limits/${endpoint}`, crmToken)).body);
      },
    );

    it('answers bad input with HubSpot errors', async () => {
      expectError(
        await call('GET', `/crm/limits/${version}/calculated-properties`, null),
        401,
        'INVALID_AUTHENTICATION',
      );
      expectError(await call('GET', `/crm/limits/${version}/nope`, crmToken), 404, 'OBJECT_NOT_FOUND');
      const noScope = mintLimitsToken(t, { hubId: crmHubId, scopes: ['oauth'] });
      expectError(await call('GET', `/crm/limits/${version}/custom-object-types`, noScope), 403, 'MISSING_SCOPES');
    });
  });

  it('2026-09 no longer accepts the tickets and engagement scopes that 2026-03 accepts', async () => {
    const ticketsOnly = mintLimitsToken(t, { hubId: crmHubId, scopes: ['crm.objects.tickets.sensitive.read'] });
    for (const endpoint of ['calculated-properties', 'custom-properties']) {
      expect((await call('GET', `/crm/limits/2026-03/${endpoint}`, ticketsOnly)).status).toBe(200);
      const body = expectError(
        await call('GET', `/crm/limits/2026-09/${endpoint}`, ticketsOnly),
        403,
        'MISSING_SCOPES',
      );
      expect(body.context?.requiredScopes).not.toContain('crm.objects.tickets.sensitive.read');
      expect(body.context?.requiredScopes).toContain('crm.objects.deals.read');
    }
  });
});

describe('properties at /crm/properties/{version}/{objectType}', () => {
  const property = (name: string, options?: unknown[]) => ({
    name,
    label: `Label ${name}`,
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'contactinformation',
    options: options ?? [{ label: 'A', value: 'a', displayOrder: 0 }],
  });

  describe.each(VERSIONS)('%s', (version: Version) => {
    const base = `/crm/properties/${version}`;
    const file = `${version}/properties.json`;
    const name = `dated_${version.replace('-', '_')}`;

    it('creates (201), lists, reads and archives (204), bodies as the version’s spec says', async () => {
      const created = await call('POST', `${base}/contacts`, crmToken, property(name));
      expect(created.status).toBe(201);
      expect(validateResponse(file, 'POST', `${base}/{objectType}`, created.body, '201')).toEqual([]);

      const list = await call('GET', `${base}/contacts`, crmToken);
      expect(list.status).toBe(200);
      expect(validateResponse(file, 'GET', `${base}/{objectType}`, list.body)).toEqual([]);
      expect(list.body.results.map((p: { name: string }) => p.name)).toContain(name);

      const one = await call('GET', `${base}/contacts/${name}`, crmToken);
      expect(one.status).toBe(200);
      expect(validateResponse(file, 'GET', `${base}/{objectType}/{propertyName}`, one.body)).toEqual([]);

      expect((await call('DELETE', `${base}/contacts/${name}`, crmToken)).status).toBe(204);
      const archived = await call('GET', `${base}/contacts/${name}?archived=true`, crmToken);
      expect(archived.status).toBe(200);
      expect(archived.body.archived).toBe(true);
    });

    it('requires each option’s displayOrder (optional at v3)', async () => {
      const body = expectError(
        await call('POST', `${base}/contacts`, crmToken, property(`${name}_x`, [{ label: 'A', value: 'a' }])),
        400,
        'VALIDATION_ERROR',
      );
      expect(body.errors).toEqual([expect.objectContaining({ in: 'options.0.displayOrder', code: 'REQUIRED' })]);
      const v3 = await call(
        'POST',
        '/crm/v3/properties/contacts',
        crmToken,
        property(`${name}_v3`, [{ label: 'A', value: 'a' }]),
      );
      expect(v3.status).toBe(201);
    });

    it('answers bad input with HubSpot errors', async () => {
      expectError(await call('GET', `${base}/contacts`, null), 401, 'INVALID_AUTHENTICATION');
      expectError(await call('GET', `${base}/contacts/no_such_property`, crmToken), 404, 'OBJECT_NOT_FOUND');
      expectError(await call('GET', `${base}/contacts?archived=maybe`, crmToken), 400, 'VALIDATION_ERROR');
      expectError(await call('POST', `${base}/contacts`, crmToken, '{"name":'), 400, 'VALIDATION_ERROR');
      const body = expectError(
        await call('POST', `${base}/contacts`, crmToken, { name: 'x' }),
        400,
        'VALIDATION_ERROR',
      );
      expect(fieldsOf(body)).toEqual(expect.arrayContaining(['label', 'type', 'fieldType', 'groupName']));
    });
  });

  it('2026-09 no longer accepts crm.schemas.tickets.* for ticket properties', async () => {
    const schemaScopes = mintLimitsToken(t, {
      hubId: crmHubId,
      scopes: ['crm.schemas.tickets.read', 'crm.schemas.tickets.write'],
    });
    expect((await call('GET', '/crm/properties/2026-03/tickets', schemaScopes)).status).toBe(200);
    const body = expectError(await call('GET', '/crm/properties/2026-09/tickets', schemaScopes), 403, 'MISSING_SCOPES');
    expect(body.context?.requiredScopes).toEqual(['tickets']);
    const legacy = mintLimitsToken(t, { hubId: crmHubId, scopes: ['tickets'] });
    expect((await call('GET', '/crm/properties/2026-09/tickets', legacy)).status).toBe(200);
  });
});

describe('schemas at /crm-object-schemas/{version}/schemas', () => {
  const egg = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    labels: { singular: `${name} item`, plural: `${name} items` },
    primaryDisplayProperty: 'title',
    secondaryDisplayProperties: [],
    searchableProperties: ['title'],
    requiredProperties: ['title'],
    properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
    associatedObjects: ['CONTACT'],
    allowsSensitiveProperties: false,
    ...extra,
  });

  describe.each(VERSIONS)('%s', (version: Version) => {
    const base = `/crm-object-schemas/${version}/schemas`;
    const file = `${version}/schemas.json`;
    const name = `dated${version.replace('-', '')}`;

    it('creates (201), lists, reads and archives (204), bodies as the version’s spec says', async () => {
      const created = await call('POST', base, crmToken, egg(name, { shouldCreateSameObjectAssociation: false }));
      expect(created.status).toBe(201);
      expect(validateResponse(file, 'POST', base, created.body, '201')).toEqual([]);
      expect(created.body.allowsSensitiveProperties).toBe(false);

      const list = await call('GET', base, crmToken);
      expect(list.status).toBe(200);
      expect(validateResponse(file, 'GET', base, list.body)).toEqual([]);

      const one = await call('GET', `${base}/${created.body.objectTypeId}`, crmToken);
      expect(one.status).toBe(200);
      expect(validateResponse(file, 'GET', `${base}/{objectType}`, one.body)).toEqual([]);
      expect(one.body.name).toBe(name);

      expect((await call('DELETE', `${base}/${name}`, crmToken)).status).toBe(204);
      expect((await call('DELETE', `${base}/${name}?archived=true`, crmToken)).status).toBe(204);
      expectError(await call('GET', `${base}/${name}`, crmToken), 404, 'OBJECT_NOT_FOUND');
    });

    it('requires what the version’s ObjectSchemaEgg requires, and refuses flags it cannot honour', async () => {
      const bare = egg(`${name}b`);
      delete (bare as Partial<typeof bare>).allowsSensitiveProperties;
      delete (bare as Partial<typeof bare>).searchableProperties;
      const body = expectError(await call('POST', base, crmToken, bare), 400, 'VALIDATION_ERROR');
      const expected = ['allowsSensitiveProperties', 'searchableProperties'];
      if (version === '2026-03') expected.push('shouldCreateSameObjectAssociation');
      expect(fieldsOf(body).sort()).toEqual(expected);
      expect(body.errors?.every((e) => e.code === 'REQUIRED')).toBe(true);

      const flags = { shouldCreateSameObjectAssociation: false };
      const sensitive = await call(
        'POST',
        base,
        crmToken,
        egg(`${name}c`, { ...flags, allowsSensitiveProperties: true }),
      );
      expect(expectError(sensitive, 400, 'VALIDATION_ERROR').errors).toEqual([
        expect.objectContaining({ in: 'allowsSensitiveProperties', code: 'UNSUPPORTED' }),
      ]);
      const self = await call('POST', base, crmToken, egg(`${name}d`, { shouldCreateSameObjectAssociation: true }));
      expect(fieldsOf(expectError(self, 400, 'VALIDATION_ERROR'))).toEqual(['shouldCreateSameObjectAssociation']);
    });

    it('answers bad input with HubSpot errors', async () => {
      expectError(await call('GET', base, null), 401, 'INVALID_AUTHENTICATION');
      expectError(await call('GET', `${base}/no_such_schema`, crmToken), 404, 'OBJECT_NOT_FOUND');
      expectError(await call('GET', `${base}?archived=maybe`, crmToken), 400, 'VALIDATION_ERROR');
      expectError(await call('POST', base, crmToken, '{"name":'), 400, 'VALIDATION_ERROR');
      const readOnly = mintLimitsToken(t, { hubId: crmHubId, scopes: ['crm.schemas.custom.read'] });
      expectError(await call('POST', base, readOnly, egg(`${name}e`)), 403, 'MISSING_SCOPES');
    });
  });
});

describe('the OpenAPI document', () => {
  it('lists every dated path next to the v3 ones', async () => {
    const r = await call('GET', '/docs/json', null);
    expect(r.status).toBe(200);
    const paths = Object.keys(r.body.paths as Record<string, unknown>);
    for (const version of ['v3', ...VERSIONS]) {
      const cards = version === 'v3' ? '/crm/v3/extensions/cards-dev' : `/crm/extensions/cards-dev/${version}`;
      const limits = version === 'v3' ? '/crm/v3/limits' : `/crm/limits/${version}`;
      const properties = version === 'v3' ? '/crm/v3/properties' : `/crm/properties/${version}`;
      expect(paths).toEqual(
        expect.arrayContaining([
          `${cards}/sample-response`,
          `${cards}/{appId}`,
          `${cards}/{appId}/views/migrate`,
          `${cards}/{appId}/{cardId}`,
          `${limits}/calculated-properties`,
          `${limits}/custom-object-types`,
          `${limits}/custom-properties`,
          `${properties}/{objectType}`,
          `${properties}/{objectType}/{propertyName}`,
          `/crm-object-schemas/${version}/schemas`,
          `/crm-object-schemas/${version}/schemas/{objectType}`,
        ]),
      );
    }
    expect(paths).toEqual(expect.arrayContaining(['/crm/v3/schemas', '/crm/v3/schemas/{objectType}']));
  });
});

describe('rate limits and metrics on dated paths', () => {
  it('counts dated and v3 calls of one app and account in one public-app bucket', async () => {
    const limited = await startTestApp({
      listen: true,
      env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '10000' },
    });
    try {
      const hubId = (await createAccount(limited)).hubId;
      const token = mintLimitsToken(limited, { hubId, scopes: LIMITS_TEST_SCOPES });
      const get = (path: string) => fetch(`${limited.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const statuses: number[] = [];
      const remaining: Array<string | null> = [];
      for (const path of [
        '/crm/v3/limits/custom-object-types',
        '/crm/limits/2026-03/custom-object-types',
        '/crm/limits/2026-09/custom-object-types',
        '/crm-object-schemas/2026-09/schemas',
      ]) {
        const r = await get(path);
        await r.text();
        statuses.push(r.status);
        remaining.push(r.headers.get('x-hubspot-ratelimit-remaining'));
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(remaining.slice(0, 3)).toEqual(['2', '1', '0']);
    } finally {
      await limited.close();
    }
  });

  it('labels request metrics with the dated route pattern', async () => {
    await call('GET', `/crm/limits/2026-09/custom-object-types`, crmToken);
    const r = await fetch(`${t.url}/metrics`);
    const text = await r.text();
    expect(text).toMatch(/route="\/crm\/limits\/2026-09\/custom-object-types"/);
    expect(text).toMatch(/route="\/crm\/properties\/2026-03\/:objectType"/);
  });
});

describe('the official client (@hubspot/api-client 14)', () => {
  // Its typed clients hard-code the v3 paths after basePath, so dated paths go through apiRequest.
  it('reaches the dated paths through client.apiRequest with the access token', async () => {
    const client = new Client({ accessToken: crmToken, basePath: t.url, numberOfApiCallRetries: 0 });
    for (const version of VERSIONS) {
      const path = `/crm/limits/${version}/custom-object-types`;
      const limits = await client.apiRequest({ method: 'GET', path });
      expect(limits.status).toBe(200);
      expect(validateResponse(`${version}/limitsTracking.json`, 'GET', path, await limits.json())).toEqual([]);

      const schemas = await client.apiRequest({ method: 'GET', path: `/crm-object-schemas/${version}/schemas` });
      expect(schemas.status).toBe(200);
      const body = await schemas.json();
      expect(
        validateResponse(`${version}/schemas.json`, 'GET', `/crm-object-schemas/${version}/schemas`, body),
      ).toEqual([]);
    }
    const cards = new Client({ accessToken: cardsToken, basePath: t.url, numberOfApiCallRetries: 0 });
    const list = await cards.apiRequest({ method: 'GET', path: `/crm/extensions/cards-dev/2026-03/${appId}` });
    expect(list.status).toBe(200);
    expect(
      checkCardsResponseIn(
        '2026-03/publicAppCrmCards.json',
        'GET',
        '/crm/extensions/cards-dev/2026-03/{appId}',
        200,
        await list.json(),
      ),
    ).toEqual([]);
  });
});
