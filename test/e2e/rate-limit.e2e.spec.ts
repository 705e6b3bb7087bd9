import { Client } from '@hubspot/api-client';
import type { LightMyRequestResponse } from 'fastify';
import { RateLimiters, type RateLimitedEvent } from '../../src/oauth/rate-limit/rate-limiters';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { installAndExchange, oauthFixture, refresh, tokenRequest } from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * HubSpot's public-app rate limit (per app and account, rolling window, 429 TEN_SECONDLY_ROLLING
 * with X-HubSpot-RateLimit-* headers) and the token endpoint's failed-authentication throttle,
 * over HTTP. Time is the app's ManualClock: windows roll when the test moves it, never by sleeping.
 */
const LIMITS_PATH = '/crm/v3/limits/calculated-properties';

const get = (t: TestApp, token: string, url = LIMITS_PATH) =>
  t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

function expectRateLimited(r: LightMyRequestResponse, group: string, retryAfter: string): void {
  expect(r.statusCode).toBe(429);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json() as Record<string, unknown>;
  expect(body).toEqual({
    status: 'error',
    message: 'You have reached your ten_secondly_rolling limit.',
    errorType: 'RATE_LIMIT',
    correlationId: r.headers['x-hubspot-correlation-id'],
    policyName: 'TEN_SECONDLY_ROLLING',
    groupName: group,
    category: 'RATE_LIMITS',
  });
  expectOAuthSchema('Error', body);
  expect(r.headers['retry-after']).toBe(retryAfter);
  expect(r.headers['x-hubspot-ratelimit-remaining']).toBe('0');
}

describe('rate limits: public app per app and account, rolling window', () => {
  let t: TestApp;
  let hubA: number;
  let hubB: number;
  const limited: RateLimitedEvent[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '10000' },
    });
    hubA = (await createAccount(t, { tier: 'professional' })).hubId;
    hubB = (await createAccount(t, { tier: 'professional' })).hubId;
    t.app.get(RateLimiters).events.on('limited', (e: RateLimitedEvent) => limited.push(e));
  });
  afterAll(() => t.close());

  const token = (appId: number, hubId: number) => mintLimitsToken(t, { appId, hubId, scopes: LIMITS_TEST_SCOPES });

  it('counts down X-HubSpot-RateLimit-Remaining, then answers 429 with HubSpot body, headers and Retry-After', async () => {
    const tok = token(101, hubA);
    for (let i = 4; i >= 0; i--) {
      const r = await get(t, tok);
      expect(r.statusCode).toBe(200);
      expect(r.headers['x-hubspot-ratelimit-interval-milliseconds']).toBe('10000');
      expect(r.headers['x-hubspot-ratelimit-max']).toBe('5');
      expect(r.headers['x-hubspot-ratelimit-remaining']).toBe(String(i));
      t.clock.advance(1000);
    }
    // t = 5 s; the first call (t = 0) leaves the window at t = 10 s
    expectRateLimited(await get(t, tok), 'publicapp:101:' + hubA, '5');
    expect(limited.at(-1)).toEqual({
      policy: 'TEN_SECONDLY_ROLLING',
      key: `publicapp:101:${hubA}`,
      retryAfterMs: 5000,
    });
    // refused calls are not counted: retrying does not push the window further
    t.clock.advance(4999);
    expectRateLimited(await get(t, tok), 'publicapp:101:' + hubA, '1');
    t.clock.advance(1);
    const again = await get(t, tok);
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-hubspot-ratelimit-remaining']).toBe('0');
    expect((await get(t, tok)).statusCode).toBe(429); // rolling: only one call left the window
    t.clock.advance(10_000);
  });

  it('the budget belongs to one app in one account: other accounts and other apps are unaffected', async () => {
    const tok = token(202, hubA);
    for (let i = 0; i < 5; i++) expect((await get(t, tok)).statusCode).toBe(200);
    expect((await get(t, tok)).statusCode).toBe(429);
    // same app, another account; another app, same account: full budgets
    const otherHub = await get(t, token(202, hubB));
    expect(otherHub.statusCode).toBe(200);
    expect(otherHub.headers['x-hubspot-ratelimit-remaining']).toBe('4');
    expect((await get(t, token(203, hubA))).headers['x-hubspot-ratelimit-remaining']).toBe('4');
    // a new token of the same app and account shares the exhausted budget
    expectRateLimited(await get(t, token(202, hubA)), `publicapp:202:${hubA}`, '10');
    t.clock.advance(10_000);
  });

  it('every authenticated response carries the headers, errors included; every route of the CRM counts', async () => {
    const tok = token(303, hubA);
    const notFound = await get(t, tok, '/crm/v3/properties/contacts/no_such_property');
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['x-hubspot-ratelimit-remaining']).toBe('4');
    const badBody = await t.inject({
      method: 'POST',
      url: '/crm/v3/properties/contacts',
      headers: { authorization: `Bearer ${tok}` },
      payload: { name: 42 },
    });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.headers['x-hubspot-ratelimit-remaining']).toBe('3');
    t.clock.advance(10_000);
  });

  it('calls without a valid access token are neither counted nor given the headers', async () => {
    const tok = token(404, hubA);
    for (let i = 0; i < 20; i++) {
      const bad = await get(t, tok.slice(0, -2) + 'xx');
      expect(bad.statusCode).toBe(401);
      expect(bad.headers['x-hubspot-ratelimit-remaining']).toBeUndefined();
      const admin = await t.admin('GET', `/admin/v1/accounts/${hubA}`);
      expect(admin.statusCode).toBe(200);
      expect(admin.headers['x-hubspot-ratelimit-max']).toBeUndefined();
    }
    expect((await get(t, tok)).headers['x-hubspot-ratelimit-remaining']).toBe('4');
    t.clock.advance(10_000);
  });

  it('@hubspot/api-client with numberOfApiCallRetries recovers after the window; without retries it sees the 429', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const basePath = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const accessToken = token(505, hubA);
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined); // the client logs each retry
    try {
      for (let i = 0; i < 5; i++) expect((await get(t, accessToken)).statusCode).toBe(200);

      const once = new Client({ accessToken, basePath, numberOfApiCallRetries: 0 });
      await expect(once.crm.properties.coreApi.getAll('contacts')).rejects.toMatchObject({
        code: 429,
        body: expect.objectContaining({ policyName: 'TEN_SECONDLY_ROLLING', errorType: 'RATE_LIMIT' }),
      });

      // The client waits 10 s (its fixed TEN_SECONDLY_ROLLING back-off) before retrying; while it
      // waits, the service's time moves on by that much — on our clock, driven by the refusal.
      const retrying = new Client({ accessToken, basePath, numberOfApiCallRetries: 2 });
      const onLimited = () => t.clock.advance(10_000);
      t.app.get(RateLimiters).events.once('limited', onLimited);
      const started = Date.now();
      const page = await retrying.crm.properties.coreApi.getAll('contacts');
      expect(Array.isArray(page.results)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_900); // it really was refused once and waited
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('Request failed with status code [429]'));
    } finally {
      errors.mockRestore();
    }
  }, 30_000);
});

describe('rate limits: developer API key calls (issue 26, item 1)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '5', DEVELOPER_KEY_RATE_LIMIT_MAX: '3' },
    });
  });
  afterAll(() => t.close());

  const developer = async () => {
    const hubId = (await createAccount(t)).hubId;
    const appId = (await createApp(t, { developerHubId: hubId })).appId;
    const key = (await t.admin('POST', `/admin/v1/accounts/${hubId}/developer-api-keys`)).json().developerApiKey;
    return { hubId, appId, key: key as string };
  };
  const cards = (d: { appId: number; key: string }, payload?: unknown) =>
    t.inject({
      method: payload === undefined ? 'GET' : 'POST',
      url: `/crm/v3/extensions/cards-dev/${d.appId}?hapikey=${d.key}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('count per developer account, bad bodies included; past the limit HubSpot’s 429; other accounts unaffected', async () => {
    const a = await developer();
    const b = await developer();
    const first = await cards(a);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-hubspot-ratelimit-max']).toBe('3');
    expect(first.headers['x-hubspot-ratelimit-remaining']).toBe('2');
    // The body: a 30,000-wide objectTypes array through a developer key is counted, and refused short.
    const wide = await cards(a, { fetch: { objectTypes: Array(30_000).fill({}) } });
    expect(wide.statusCode).toBe(400);
    expect(wide.headers['x-hubspot-ratelimit-remaining']).toBe('1');
    expect((await cards(a)).statusCode).toBe(200);
    expectRateLimited(await cards(a), `developerapikey:${a.hubId}`, '10');
    // A new key of the same account (it replaces the first) shares the budget; another account has its own.
    const second = (await t.admin('POST', `/admin/v1/accounts/${a.hubId}/developer-api-keys`)).json().developerApiKey;
    expect((await cards({ appId: a.appId, key: second })).statusCode).toBe(429);
    expect((await cards(b)).headers['x-hubspot-ratelimit-remaining']).toBe('2');
    t.clock.advance(10_000);
    expect((await cards({ appId: a.appId, key: second })).statusCode).toBe(200);
  });
});

describe('rate limits: defaults and the switch', () => {
  it('defaults to HubSpot’s 110 per 10 s; RATE_LIMIT_ENABLED=false removes limit and headers', async () => {
    const on = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true' } });
    const off = await startTestApp(); // tests' default: RATE_LIMIT_ENABLED=false
    try {
      for (const t of [on, off]) {
        const hubId = (await createAccount(t, { tier: 'professional' })).hubId;
        const tok = mintLimitsToken(t, { appId: 9, hubId, scopes: LIMITS_TEST_SCOPES });
        const statuses: number[] = [];
        let last: LightMyRequestResponse | undefined;
        for (let i = 0; i < 111; i++) {
          last = await get(t, tok);
          statuses.push(last.statusCode);
        }
        if (t === on) {
          expect(statuses.filter((s) => s === 200)).toHaveLength(110);
          expect(statuses[110]).toBe(429);
          expect(last!.headers['x-hubspot-ratelimit-max']).toBe('110');
          expect(last!.headers['x-hubspot-ratelimit-interval-milliseconds']).toBe('10000');
          expect(last!.headers['retry-after']).toBe('10');
        } else {
          expect(statuses.every((s) => s === 200)).toBe(true);
          expect(last!.headers['x-hubspot-ratelimit-max']).toBeUndefined();
        }
      }
    } finally {
      await on.close();
      await off.close();
    }
  }, 30_000); // two services and 222 requests: over jest's 5 s on a busy 2-core machine
});

describe('token endpoint: failed client authentication is throttled per client and per address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ENABLED: 'true', CLIENT_AUTH_FAILURE_MAX: '10', CLIENT_AUTH_FAILURE_WINDOW_MS: '60000' },
    });
  });
  afterAll(() => t.close());

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const attempt = (fields: Record<string, string>, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.inject({
      method: 'POST',
      url: '/oauth/v1/token',
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: form(fields),
    });

  function expectThrottled(r: LightMyRequestResponse, retryAfter: string): void {
    expect(r.statusCode).toBe(429);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['retry-after']).toBe(retryAfter);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['www-authenticate']).toBeUndefined();
    const body = r.json() as Record<string, unknown>;
    expectOAuthSchema('Error', body);
    expect(body).toMatchObject({
      status: 'error',
      category: 'RATE_LIMITS',
      errorType: 'RATE_LIMIT',
      policyName: 'CLIENT_AUTHENTICATION_FAILURES',
      error: 'invalid_client',
      correlationId: r.headers['x-hubspot-correlation-id'],
    });
    expect(body.error_description).toBe(body.message);
    expect(JSON.stringify(body)).not.toContain('wrong-secret');
  }

  it('per client_id, across addresses: the 11th failure in a minute is 429; the right secret still gets tokens', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    const bad = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: f.clientId };
    for (let i = 0; i < 10; i++) {
      const r = await attempt({ ...bad, client_secret: `wrong-secret-${i}` }, `10.0.1.${i}`);
      expect(r.statusCode).toBe(401);
      t.clock.advance(1000);
    }
    // t = 10 s; the first failure leaves the one-minute window at t = 60 s
    expectThrottled(await attempt({ ...bad, client_secret: 'wrong-secret' }, '10.0.1.99'), '50');
    // HTTP Basic names the same client; failures while throttled count too (the newest ten are
    // kept), so the wait now runs from the second failure (t = 1 s)
    const basic = Buffer.from(`${encodeURIComponent(f.clientId)}:wrong-secret`).toString('base64');
    expectThrottled(
      await attempt({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, '10.0.1.98', {
        authorization: `Basic ${basic}`,
      }),
      '51',
    );
    // base64url in the Basic header (Node decodes it, so the authenticator accepts it): the same client
    let urlSafe = '';
    for (let i = 0; i < 100 && !/[-_]/.test(urlSafe); i++) {
      urlSafe = Buffer.from(`${encodeURIComponent(f.clientId)}:wrong\u00ff\u00ff${i}`).toString('base64url');
    }
    expect(urlSafe).toMatch(/[-_]/);
    const viaUrlSafe = await attempt(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      '10.0.1.97',
      {
        authorization: `Basic ${urlSafe}`,
      },
    );
    expect(viaUrlSafe.statusCode).toBe(429);
    // successful authentication: unaffected, and not counted
    for (let i = 0; i < 3; i++) expect((await refresh(t, f, tokens.refresh_token)).statusCode).toBe(200);
    // a wrong refresh token with the right secret is invalid_grant (400), not an authentication failure
    expect((await refresh(t, f, 'not-a-refresh-token')).statusCode).toBe(400);
    t.clock.advance(60_000);
    expect((await attempt({ ...bad, client_secret: 'wrong-secret' }, '10.0.1.1')).statusCode).toBe(401);
    t.clock.advance(60_000);
  });

  it('per address, across client ids: the 11th failure from one address is 429, other addresses are not', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    for (let i = 0; i < 10; i++) {
      const r = await attempt(
        { grant_type: 'refresh_token', refresh_token: 'x', client_id: `unknown-client-${i}`, client_secret: 's' },
        '192.0.2.7',
      );
      expect(r.statusCode).toBe(401);
    }
    expectThrottled(
      await attempt(
        { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'unknown-client-x', client_secret: 's' },
        '192.0.2.7',
      ),
      '60',
    );
    // without any client_id at all, the address still counts
    expectThrottled(await attempt({ grant_type: 'refresh_token', refresh_token: 'x' }, '192.0.2.7'), '60');
    // another address is not throttled
    const other = await attempt(
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'unknown-client-y', client_secret: 's' },
      '192.0.2.8',
    );
    expect(other.statusCode).toBe(401);
    // the throttled address still gets tokens with the right credentials
    const ok = await attempt(
      {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: f.clientId,
        client_secret: f.clientSecret,
      },
      '192.0.2.7',
    );
    expect(ok.statusCode).toBe(200);
    // other token-endpoint errors are not authentication failures and are never turned into 429
    const badGrant = await tokenRequest(t, { grant_type: 'password' }, {});
    expect(badGrant.statusCode).toBe(400);
    t.clock.advance(60_000);
  });
});
