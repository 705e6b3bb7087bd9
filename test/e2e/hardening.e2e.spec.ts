import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/** Issue 14: an installed app (or anyone) cannot exhaust memory, stall the loop, or get secrets logged. */

function expectHubSpotError(r: LightMyRequestResponse, status: number, category?: string) {
  expect(r.statusCode).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json();
  expect(body).toMatchObject({ message: expect.any(String), correlationId: expect.any(String) });
  if (category !== undefined) expect(body.category).toBe(category);
  return body;
}

/** A request body that records whether anyone read it. */
function watchedBody(text: string): { stream: Readable; wasRead: () => boolean } {
  let read = false;
  const stream = new Readable({
    read() {
      read = true;
      this.push(text);
      this.push(null);
    },
  });
  return { stream, wasRead: () => read };
}

const property = (name: string, optionCount: number, labelLength: number) => ({
  name,
  label: `Label ${name}`,
  type: 'enumeration',
  fieldType: 'select',
  groupName: 'contactinformation',
  options: Array.from({ length: optionCount }, (_, i) => ({
    label: `${i}-${'l'.repeat(labelLength)}`,
    value: `v${i}`,
    displayOrder: i,
  })),
});

describe('hardening (issue 14)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    const account = await createAccount(t, { tier: 'enterprise' });
    token = mintLimitsToken(t, { hubId: account.hubId, scopes: LIMITS_TEST_SCOPES });
  });
  afterAll(() => t.close());

  const crm = (payload: unknown, bearer = token) =>
    t.inject({
      method: 'POST',
      url: '/crm/v3/properties/contacts',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  describe('finding 1: CRM routes have realistic body limits', () => {
    it('answers 413 with a HubSpot error body for a 1 MB property, and still takes a realistic one', async () => {
      const huge = property('huge_enum', 1000, 490); // ~0.5 MB: the shape of the reported attack
      expect(JSON.stringify(huge).length).toBeGreaterThan(256 * 1024);
      expectHubSpotError(await crm(huge), 413, 'PAYLOAD_TOO_LARGE');
      // Declared larger than the limit: refused before the body is read.
      const declared = await t.inject({
        method: 'POST',
        url: '/crm/v3/properties/contacts',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(300 * 1024),
        },
        payload: watchedBody('{}').stream,
      });
      expectHubSpotError(declared, 413);

      const realistic = await crm(property('many_options', 500, 100)); // ~70 KB
      expect(realistic.statusCode).toBe(201);
    });

    it('gives the OAuth forms 16 KiB', async () => {
      const r = await t.inject({
        method: 'POST',
        url: '/oauth/v1/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=refresh_token&refresh_token=${'x'.repeat(20 * 1024)}`,
      });
      expectHubSpotError(r, 413);
    });
  });

  describe('finding 5: credentials before the body, and bounded JSON', () => {
    it('refuses an unauthenticated admin request with 401 without reading its body', async () => {
      const body = watchedBody(`{"name":"${'['.repeat(1000)}`);
      const r = await t.inject({
        method: 'POST',
        url: '/admin/v1/apps',
        headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-key-wrong-key-wrong' },
        payload: body.stream,
      });
      expectHubSpotError(r, 401, 'INVALID_AUTHENTICATION');
      expect(body.wasRead()).toBe(false);
    });

    it('refuses a CRM request without a valid token with 401 without reading its body', async () => {
      for (const authorization of [undefined, 'Bearer not-a-token']) {
        const body = watchedBody('{"name": "x"');
        const r = await t.inject({
          method: 'POST',
          url: '/crm/v3/properties/contacts',
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          payload: body.stream,
        });
        expectHubSpotError(r, 401, 'INVALID_AUTHENTICATION');
        expect(body.wasRead()).toBe(false);
      }
      // Malformed JSON without credentials: the credentials decide (401), not the parser (400).
      const r = await t.inject({
        method: 'POST',
        url: '/admin/v1/apps',
        headers: { 'content-type': 'application/json' },
        payload: '{',
      });
      expectHubSpotError(r, 401);
    });

    it('refuses a cards developer request without a valid token or developer API key with 401 without reading its body', async () => {
      const credentials: Array<{ query: string; authorization?: string }> = [
        { query: '' },
        { query: '', authorization: 'Bearer not-a-token' },
        { query: '?hapikey=00000000-0000-4000-8000-000000000000' },
        { query: '?hapikey=' },
        // With an Authorization header the token decides, hapikey or not.
        { query: '?hapikey=00000000-0000-4000-8000-000000000000', authorization: 'Bearer not-a-token' },
      ];
      for (const { query, authorization } of credentials) {
        const body = watchedBody(`{"title":"${'['.repeat(1000)}`);
        const r = await t.inject({
          method: 'POST',
          url: `/crm/v3/extensions/cards-dev/1${query}`,
          headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          payload: body.stream,
        });
        expectHubSpotError(r, 401, 'INVALID_AUTHENTICATION');
        expect(body.wasRead()).toBe(false);
      }
    });

    it('refuses deep nesting and too many keys with a 400 HubSpot error, before parsing', async () => {
      const nested = await t.inject({
        method: 'POST',
        url: '/admin/v1/apps',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        payload: `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
      });
      const nestedBody = expectHubSpotError(nested, 400, 'VALIDATION_ERROR');
      expect(nestedBody.message).toContain('nested deeper than');
      expect(nestedBody.errors).toMatchObject([{ in: 'body', code: 'TOO_DEEP' }]);

      const keys = `{${Array.from({ length: 41_000 }, (_, i) => `"constructor${i}":1`).join(',')}}`;
      const flood = await t.inject({
        method: 'POST',
        url: '/admin/v1/apps',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        payload: keys,
      });
      const manyKeys = expectHubSpotError(flood, 400, 'VALIDATION_ERROR');
      expect(manyKeys.message).toContain('more than 40000 keys');

      // A valid CRM batch at its largest shape is not taken for a flood: four enumerations of
      // 1,000 options each (about 12,000 keys) under the 256 KiB CRM limit.
      const batch = JSON.stringify({ inputs: [1, 2, 3, 4].map((n) => property(`big_enum_${n}`, 1000, 1)) });
      expect(batch.length).toBeLessThan(256 * 1024);
      expect(batch.split(':').length - 1).toBeGreaterThan(12_000);
      const created = await t.inject({
        method: 'POST',
        url: '/crm/v3/properties/contacts/batch/create',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: batch,
      });
      expect(created.statusCode).toBe(201);

      // Strings may hold any brackets and colons: they are not structure.
      const tricky = await crm({ ...property('tricky_text', 1, 1), label: '[[[[{{{{::::"\\' });
      expect(tricky.statusCode).toBe(201);
    });
  });

  describe('finding 8: control characters in redirect URLs', () => {
    it('refuses TAB, CR/LF, U+2028 and other controls at registration (400 VALIDATION_ERROR)', async () => {
      const dev = await createAccount(t);
      for (const url of [
        'https://app.example.com/cb\t',
        'https://app.example.com/c\tb',
        'https://app.example.com/cb\r\nSet-Cookie: x=1',
        'https://app.example.com/cb\u2028',
        'https://app.example.com/cb\u0000',
        'https://app.example.com/cb\u007f',
        'https://app.example.com/cb\u0085',
      ]) {
        const r = await t.admin('POST', '/admin/v1/apps', {
          developerHubId: dev.hubId,
          name: 'ctl',
          redirectUrls: [url],
          requiredScopes: ['oauth'],
        });
        const body = expectHubSpotError(r, 400, 'VALIDATION_ERROR');
        expect(body.errors).toMatchObject([{ in: 'redirectUrls[0]' }]);
      }
    });
  });
});

describe('finding 7: redaction and the form-only rule on the routed path', () => {
  let t: TestApp;
  const lines: string[] = [];
  const RT = 'na1-0f1e2d3c-aaaa-bbbb-cccc-refreshtoken42';
  const AT = 'CKs-secret-access-token-value-0123456789';
  const SECRET = 'client-secret-value-9f8e7d6c5b4a';
  beforeAll(async () => {
    t = await startTestApp({
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line) => void lines.push(line) },
      listen: true,
    });
  });
  afterAll(() => t.close());

  /** A raw request, so the request target is sent exactly as written (absolute form included). */
  function raw(method: string, target: string, body?: { type: string; text: string }): Promise<number> {
    const { port } = new URL(t.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path: target,
          headers: body ? { 'content-type': body.type, 'content-length': Buffer.byteLength(body.text) } : {},
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end(body?.text);
    });
  }

  it('never logs a token or a secret however the URL spells the route or the parameter', async () => {
    const targets = [
      `/oauth/v1/refresh%2Dtokens/${RT}`,
      `/%6Fauth/v1/refresh-tokens/${RT}`,
      `/oauth/v1/access%2dtokens/${AT}`,
      `/oauth/v1/refresh-tokens/${RT.slice(0, 10)}%2F${RT.slice(10)}`,
      `${t.url}/oauth/v1/refresh-tokens/${RT}`,
      `${t.url}/oauth/v1/access-tokens/${AT}?x=1`,
      `/oauth/v1/token?client%5Fsecret=${SECRET}&refresh%5Ftoken=${RT}`,
      `${t.url}/oauth/v1/token?client%5fsecret=${SECRET}&%72efresh_token=${RT}`,
    ];
    for (const target of targets) {
      const status = await raw(target.includes('/token?') ? 'POST' : 'GET', target);
      expect(status).toBeLessThan(500);
    }
    const log = lines.join('');
    expect(log).toContain('"msg":"request"'); // the one line per request (was 'incoming request', issue 29)
    expect(log).toContain('[REDACTED]');
    expect(log).not.toContain(RT);
    expect(log).not.toContain(RT.slice(10));
    expect(log).not.toContain(AT);
    expect(log).not.toContain(SECRET);
  });

  it('refuses a JSON body to the token endpoint however its path is spelled, like /oauth/v1/token', async () => {
    const json = { type: 'application/json', text: JSON.stringify({ grant_type: 'refresh_token', refresh_token: RT }) };
    expect(await raw('POST', '/oauth/v1/token', json)).toBe(400);
    expect(await raw('POST', '/oauth/v1/%74oken', json)).toBe(400);
    expect(await raw('POST', `${t.url}/oauth/v1/token`, json)).toBe(400);
    expect(await raw('POST', '/oauth/2026-03/%74oken', json)).toBe(400);
    const r = await t.inject({
      method: 'POST',
      url: '/oauth/v1/%74oken',
      headers: { 'content-type': 'application/json' },
      payload: json.text,
    });
    expect(r.json()).toMatchObject({ status: 'BAD_GRANT_TYPE', error: 'unsupported_grant_type' });
  });
});

describe('issue 41, item 16: the unauthenticated health endpoints say nothing about the process', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [] });
  });
  afterAll(() => t.close());

  it.each(['/health/live', '/health/ready'])('%s discloses no PID', async (url) => {
    const r = await t.inject({ method: 'GET', url });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'ok' });
    expect(r.body).not.toMatch(/pid/i);
    expect(r.body).not.toMatch(new RegExp(`\\b${process.pid}\\b`));
  });
});
