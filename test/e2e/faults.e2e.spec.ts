import { Client } from '@hubspot/api-client';
import RetryDecorator from '@hubspot/api-client/lib/src/services/decorators/RetryDecorator';
import type { LightMyRequestResponse } from 'fastify';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { allEvents, installAndExchange, oauthFixture, type OAuthFixture, refresh } from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

// Each test starts or restarts a whole service; on a busy shared machine that can pass 5 s.
jest.setTimeout(60_000);

/**
 * Faults on demand (issue 30, item 1): set through the admin API as events, applied before the
 * route's guard and handler to the requests authenticated as the app, HubSpot's answers, never a
 * state change. Time is the app's ManualClock.
 */
const LIMITS_PATH = '/crm/v3/limits/calculated-properties';
const PROPERTIES_PATH = '/crm/v3/properties/contacts';

describe('faults on demand', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let token: string;
  const log: Record<string, unknown>[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line) => void log.push(JSON.parse(line) as Record<string, unknown>) },
    });
    f = await oauthFixture(t);
    token = mintLimitsToken(t, { appId: f.appId, hubId: f.hubId, scopes: LIMITS_TEST_SCOPES });
  });
  afterAll(() => t.close());
  afterEach(async () => {
    expect((await t.admin('DELETE', `/admin/v1/apps/${f.appId}/faults`)).statusCode).toBe(204);
  });

  const setFault = async (body: unknown, appId = f.appId) => {
    const r = await t.admin('POST', `/admin/v1/apps/${appId}/faults`, body);
    expect([r.statusCode, r.body]).toEqual([201, expect.any(String)]);
    return r.json() as { faultId: string; injected: number; active: boolean };
  };
  const listFaults = async (appId = f.appId) => {
    const r = await t.admin('GET', `/admin/v1/apps/${appId}/faults`);
    expect(r.statusCode).toBe(200);
    return (r.json() as { results: { faultId: string; injected: number; active: boolean }[] }).results;
  };
  const get = (url: string, tok = token) =>
    t.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tok}` } });

  it('the official client retries a TEN_SECONDLY_ROLLING fault on its own and succeeds on its third try; the list shows 2 injected', async () => {
    const fault = await setFault({
      match: { path: '/crm/v3/properties/*' },
      response: { kind: 'rate-limit', policy: 'TEN_SECONDLY_ROLLING' },
      times: 2,
    });
    expect(fault).toMatchObject({ injected: 0, active: true, times: 2 });
    // The client's own retry decides (policyName TEN_SECONDLY_ROLLING -> its 10 s back-off per try);
    // only its wait is skipped here, and its arguments say which branch it took.
    const waits = jest
      .spyOn(
        RetryDecorator.prototype as unknown as { _waitAfterRequestFailure: () => Promise<void> },
        '_waitAfterRequestFailure',
      )
      .mockResolvedValue(undefined);
    try {
      const client = new Client({ accessToken: token, basePath: t.url, numberOfApiCallRetries: 3 });
      const page = await client.crm.properties.coreApi.getAll('contacts');
      expect(Array.isArray(page.results)).toBe(true);
      expect(waits.mock.calls).toEqual([
        [429, 1, 10_000],
        [429, 2, 10_000],
      ]);
    } finally {
      waits.mockRestore();
    }
    expect(await listFaults()).toEqual([
      expect.objectContaining({ faultId: fault.faultId, injected: 2, active: false }),
    ]);
  });

  it('answers HubSpot’s 429 body and X-HubSpot-RateLimit-* headers per policy', async () => {
    await setFault({ response: { kind: 'rate-limit', policy: 'TEN_SECONDLY_ROLLING' }, times: 1 });
    const ten = await get(LIMITS_PATH);
    expectError(ten, 429, {
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'TEN_SECONDLY_ROLLING',
      groupName: `publicapp:${f.appId}:${f.hubId}`,
      category: 'RATE_LIMITS',
    });
    expect(ten.headers).toMatchObject({
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
      'x-hubspot-ratelimit-max': '110',
      'x-hubspot-ratelimit-remaining': '0',
      'retry-after': '10',
    });

    await setFault({ response: { kind: 'rate-limit', policy: 'SECONDLY' }, times: 1 });
    const secondly = await get(LIMITS_PATH);
    expectError(secondly, 429, {
      message: 'You have reached your secondly limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'SECONDLY',
      category: 'RATE_LIMITS',
    });
    expect(secondly.headers).toMatchObject({
      'x-hubspot-ratelimit-secondly': '10',
      'x-hubspot-ratelimit-secondly-remaining': '0',
      'retry-after': '1',
    });

    await setFault({ response: { kind: 'rate-limit', policy: 'DAILY' }, times: 1 });
    const daily = await get(LIMITS_PATH);
    expectError(daily, 429, {
      message: 'You have reached your daily limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'DAILY',
      category: 'RATE_LIMITS',
    });
    // The fixture's account is enterprise; the clock is 09:00 UTC, 15 hours before midnight UTC.
    expect(daily.headers).toMatchObject({
      'x-hubspot-ratelimit-daily': '1000000',
      'x-hubspot-ratelimit-daily-remaining': '0',
      'retry-after': String(15 * 3600),
    });
    expect(daily.headers['x-hubspot-ratelimit-secondly']).toBeUndefined();
    // Each was used once: the next call is the real answer.
    expect((await get(LIMITS_PATH)).statusCode).toBe(200);
  });

  it('an injected 5xx is HubSpot’s Error object and changes nothing: the property is not created', async () => {
    await setFault({ match: { method: 'POST', path: PROPERTIES_PATH }, response: { kind: 'error', status: 503 } });
    const property = {
      name: 'fault_probe',
      label: 'Fault probe',
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
    };
    const create = () =>
      t.inject({
        method: 'POST',
        url: PROPERTIES_PATH,
        headers: { authorization: `Bearer ${token}` },
        payload: property,
      });
    const before = (await allEvents(t)).length;
    for (let i = 0; i < 3; i++) {
      const r = await create();
      expectError(r, 503, { message: 'Service Unavailable', category: 'SERVICE_UNAVAILABLE' });
    }
    // Only GETs and other methods pass: the method and the path both have to match.
    expect((await get(`${PROPERTIES_PATH}/fault_probe`)).statusCode).toBe(404);
    expect((await allEvents(t)).length).toBe(before);

    for (const status of [500, 502, 504]) {
      await setFault({ response: { kind: 'error', status }, times: 1 });
      expect((await get(LIMITS_PATH)).statusCode).toBe(status);
    }
    await t.admin('DELETE', `/admin/v1/apps/${f.appId}/faults`);
    expect((await create()).statusCode).toBe(201);
  });

  it('applies only to the app’s own requests that match method, path glob and hubId; never to the admin API', async () => {
    const other = await oauthFixture(t);
    const otherToken = mintLimitsToken(t, { appId: other.appId, hubId: other.hubId, scopes: LIMITS_TEST_SCOPES });
    const secondHub = (await createAccount(t, { tier: 'professional' })).hubId;
    const tokenInSecondHub = mintLimitsToken(t, { appId: f.appId, hubId: secondHub, scopes: LIMITS_TEST_SCOPES });
    await setFault({
      match: { method: 'get', path: '/crm/v3/limits/**', hubId: f.hubId },
      response: { kind: 'error', status: 500 },
    });
    expect((await get(LIMITS_PATH)).statusCode).toBe(500);
    expect((await get('/crm/v3/%6Cimits/calculated-properties')).statusCode).toBe(500); // the decoded path is matched
    expect((await get(LIMITS_PATH, otherToken)).statusCode).toBe(200); // another app
    expect((await get(LIMITS_PATH, tokenInSecondHub)).statusCode).toBe(200); // another account
    expect((await get(PROPERTIES_PATH)).statusCode).toBe(200); // another path
    expect((await get(LIMITS_PATH, 'not-a-token')).statusCode).toBe(401); // not the app: the route's own 401
    expect((await t.admin('GET', `/admin/v1/apps/${f.appId}`)).statusCode).toBe(200);
  });

  it('seconds: the fault stops applying once the injected clock passes it', async () => {
    const fault = await setFault({ response: { kind: 'error', status: 502 }, seconds: 30 });
    expect((await get(LIMITS_PATH)).statusCode).toBe(502);
    t.clock.advance(29_999);
    expect((await get(LIMITS_PATH)).statusCode).toBe(502);
    t.clock.advance(1);
    expect((await get(LIMITS_PATH)).statusCode).toBe(200);
    expect(await listFaults()).toEqual([
      expect.objectContaining({ faultId: fault.faultId, injected: 2, active: false }),
    ]);
  });

  it('ratio 1 faults every matching request (the draw itself is unit-tested with a given random source)', async () => {
    await setFault({ response: { kind: 'error', status: 500 }, ratio: 1 });
    for (let i = 0; i < 3; i++) expect((await get(LIMITS_PATH)).statusCode).toBe(500);
  });

  it('latency delays the real answer; reset drops the connection without an answer', async () => {
    await setFault({ response: { kind: 'latency', ms: 150 }, times: 1 });
    const started = performance.now();
    const slow = await fetch(`${t.url}${LIMITS_PATH}`, { headers: { authorization: `Bearer ${token}` } });
    expect(slow.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);

    await setFault({ response: { kind: 'reset' }, times: 1 });
    await expect(fetch(`${t.url}${LIMITS_PATH}`, { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow();
    expect((await fetch(`${t.url}${LIMITS_PATH}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('at the token endpoint: applies to the app’s client credentials, not to a wrong secret', async () => {
    const tokens = await installAndExchange(t, f);
    await setFault({
      match: { path: '/oauth/v1/token' },
      response: { kind: 'rate-limit', policy: 'TEN_SECONDLY_ROLLING' },
    });
    const limited = await refresh(t, f, tokens.refresh_token);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ policyName: 'TEN_SECONDLY_ROLLING', groupName: `publicapp:${f.appId}` });
    const wrongSecret = await refresh(t, f, tokens.refresh_token, { client_secret: 'not-the-secret' });
    expect(wrongSecret.statusCode).toBe(401);
    await t.admin('DELETE', `/admin/v1/apps/${f.appId}/faults`);
    expect((await refresh(t, f, tokens.refresh_token)).statusCode).toBe(200);
  });

  it('with the developer account’s API key (hapikey) on the cards-dev routes', async () => {
    const issued = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`);
    const { developerApiKey } = issued.json() as { developerApiKey: string };
    const url = `/crm/v3/extensions/cards-dev/${f.appId}?hapikey=${developerApiKey}`;
    expect((await t.inject({ method: 'GET', url })).statusCode).toBe(200);
    await setFault({ match: { path: '/crm/v3/extensions/cards-dev/**' }, response: { kind: 'error', status: 504 } });
    expect((await t.inject({ method: 'GET', url })).statusCode).toBe(504);
    expect((await t.inject({ method: 'GET', url: `${url}x` })).statusCode).toBe(401); // a wrong key is the route's 401
  });

  it('with a developer key, only the faults of the app the request is for apply, not another app’s of the same account (issue 41, item 7)', async () => {
    const sibling = await createApp(t, { developerHubId: f.hubId });
    const issued = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`);
    const { developerApiKey } = issued.json() as { developerApiKey: string };
    const cardsOf = (appId: number) => `/crm/v3/extensions/cards-dev/${appId}?hapikey=${developerApiKey}`;
    await setFault({ match: { path: '/crm/v3/extensions/cards-dev/**' }, response: { kind: 'error', status: 503 } });
    try {
      expect((await t.inject({ method: 'GET', url: cardsOf(sibling.appId) })).statusCode).toBe(200);
      expect((await t.inject({ method: 'GET', url: cardsOf(f.appId) })).statusCode).toBe(503);
      await setFault(
        { match: { path: '/crm/v3/extensions/cards-dev/**' }, response: { kind: 'error', status: 502 } },
        sibling.appId,
      );
      expect((await t.inject({ method: 'GET', url: cardsOf(sibling.appId) })).statusCode).toBe(502);
      expect((await t.inject({ method: 'GET', url: cardsOf(f.appId) })).statusCode).toBe(503);
      expect((await listFaults(sibling.appId))[0]).toMatchObject({ injected: 1 });
    } finally {
      await t.admin('DELETE', `/admin/v1/apps/${sibling.appId}/faults`);
    }
  });

  it('concurrent creates on one app all succeed: a revision conflict is retried, not a 409 (issue 41, item 15)', async () => {
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        t.admin('POST', `/admin/v1/apps/${f.appId}/faults`, {
          match: { path: `/crm/v3/concurrent/${i}` },
          response: { kind: 'error', status: 500 },
        }),
      ),
    );
    expect(created.map((r) => r.statusCode)).toEqual(created.map(() => 201));
    expect(await listFaults()).toHaveLength(24);
  });

  it('is recorded as events with the admin as actor, counted in /metrics and logged at info with the fault id', async () => {
    const fault = await setFault({ response: { kind: 'error', status: 500 }, times: 1 });
    expect((await get(LIMITS_PATH)).statusCode).toBe(500);
    const del = await t.admin('DELETE', `/admin/v1/apps/${f.appId}/faults/${fault.faultId}`);
    expect(del.statusCode).toBe(204);
    const events = (await allEvents(t)).filter((e) => e.streamId === `controls.app-faults-${f.appId}`);
    const set = events.find(
      (e) => e.type === 'controls.FaultSet' && (e.data as { faultId: string }).faultId === fault.faultId,
    );
    expect(set?.metadata.actor).toBe('admin');
    expect(events.at(-1)).toMatchObject({ type: 'controls.FaultCleared', data: { faultId: fault.faultId } });
    const metrics = await t.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/test_faults_injected_total\{kind="error"\} [1-9]/);
    expect(log).toContainEqual(expect.objectContaining({ level: 30, msg: 'fault injected', faultId: fault.faultId }));
    expect(await listFaults()).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ faultId: fault.faultId })]),
    );
  });

  describe('bad input', () => {
    const post = (body: unknown, appId = f.appId) => t.admin('POST', `/admin/v1/apps/${appId}/faults`, body);
    const fields = (r: LightMyRequestResponse) => (r.json() as { errors: { in: string }[] }).errors.map((e) => e.in);

    it('unknown app: 404 on every fault route', async () => {
      for (const r of [
        await post({ response: { kind: 'reset' } }, 999_999),
        await t.admin('GET', '/admin/v1/apps/999999/faults'),
        await t.admin('DELETE', '/admin/v1/apps/999999/faults'),
        await t.admin('DELETE', '/admin/v1/apps/999999/faults/00000000-0000-0000-0000-000000000000'),
      ]) {
        expectError(r, 404, { category: 'OBJECT_NOT_FOUND' });
      }
      expectError(await t.admin('GET', '/admin/v1/apps/abc/faults'), 400, { category: 'VALIDATION_ERROR' });
    });

    it('unknown fault id: 404', async () => {
      expectError(await t.admin('DELETE', `/admin/v1/apps/${f.appId}/faults/no-such-fault`), 404, {
        category: 'OBJECT_NOT_FOUND',
      });
    });

    it('bad glob, negative seconds, unknown kind and the rest: 400 with one error per field', async () => {
      const cases: [unknown, string[]][] = [
        [{ match: { path: '/crm/v3/[properties' }, response: { kind: 'reset' } }, ['match.path']],
        [{ match: { path: 'crm/v3/*' }, response: { kind: 'reset' } }, ['match.path']],
        [{ match: { path: '/crm/{a,b' }, response: { kind: 'reset' } }, ['match.path']],
        [{ response: { kind: 'reset' }, seconds: -5 }, ['seconds']],
        [{ response: { kind: 'reset' }, seconds: 0 }, ['seconds']],
        [{ response: { kind: 'explode' } }, ['response.kind']],
        [{ response: { kind: 'rate-limit', policy: 'HOURLY' } }, ['response.policy']],
        [{ response: { kind: 'error', status: 418 } }, ['response.status']],
        [{ response: { kind: 'latency', ms: -1 } }, ['response.ms']],
        [{ response: { kind: 'reset' }, times: 2, ratio: 0.5 }, ['times']],
        [{ response: { kind: 'reset' }, times: 0 }, ['times']],
        [{ response: { kind: 'reset' }, ratio: 1.5 }, ['ratio']],
        [
          { match: { method: 'FETCH', hubId: -1, colour: 'red' }, response: { kind: 'reset' } },
          ['match.colour', 'match.method', 'match.hubId'],
        ],
        [{ match: {} }, ['response']],
        [{ response: { kind: 'reset' }, extra: 1 }, ['extra']],
        [[1, 2], ['body']],
      ];
      for (const [body, expected] of cases) {
        const r = await post(body);
        expectError(r, 400, { category: 'VALIDATION_ERROR' });
        expect([body, fields(r).sort()]).toEqual([body, [...expected].sort()]);
      }
      expect(await listFaults()).toEqual([]);
    });

    it('without the admin key: 401', async () => {
      const r = await t.inject({
        method: 'POST',
        url: `/admin/v1/apps/${f.appId}/faults`,
        headers: { authorization: `Bearer ${token}` },
        payload: { response: { kind: 'reset' } },
      });
      expectError(r, 401, { category: 'INVALID_AUTHENTICATION' });
    });
  });
});

describe('faults across a restart', () => {
  it('the faults in force are reloaded from the read model; their counts start again', async () => {
    const t = await startTestApp();
    let dataDir = t.dataDir;
    const f = await oauthFixture(t);
    const token = mintLimitsToken(t, { appId: f.appId, hubId: f.hubId, scopes: LIMITS_TEST_SCOPES });
    const r = await t.admin('POST', `/admin/v1/apps/${f.appId}/faults`, { response: { kind: 'error', status: 503 } });
    expect(r.statusCode).toBe(201);
    dataDir = t.dataDir;
    await t.close({ keepData: true });
    const again = await startTestApp({ dataDir, clock: t.clock });
    try {
      const listed = await again.admin('GET', `/admin/v1/apps/${f.appId}/faults`);
      expect(listed.json()).toEqual({ results: [expect.objectContaining({ faultId: r.json().faultId, injected: 0 })] });
      const call = await again.inject({
        method: 'GET',
        url: LIMITS_PATH,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(call.statusCode).toBe(503);
    } finally {
      await again.close();
    }
  });
});

function expectError(r: LightMyRequestResponse, status: number, fields: Record<string, unknown>): void {
  expect([r.statusCode, r.headers['content-type']]).toEqual([status, expect.stringMatching(/^application\/json/)]);
  const body = r.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status: 'error', correlationId: r.headers['x-hubspot-correlation-id'], ...fields });
  expectOAuthSchema('Error', body);
}
