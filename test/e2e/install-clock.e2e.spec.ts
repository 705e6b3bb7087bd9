import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { INSTALL_CLOCK_SCHEMA } from '../../src/oauth/http/wire-schemas';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import {
  allEvents,
  exchangeCode,
  installAndExchange,
  installCode,
  oauthFixture,
  type OAuthFixture,
  refresh,
} from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app';
import { wireProblems } from '../support/wire-schemas';

// Each test drives a whole service; on a busy shared machine a step can take seconds.
jest.setTimeout(60_000);

/**
 * An install's own clock (issue 30, item 2): POST/GET/DELETE /admin/v1/accounts/{hubId}/installs/{appId}/clock.
 * The service's clock is the test app's ManualClock and never moves here unless a test says so:
 * every expiry below comes from the install's offset alone.
 */
const CRM = '/crm/v3/limits/calculated-properties';
const SCOPES = { requiredScopes: ['oauth', 'crm.objects.deals.read'], optionalScopes: [] };

interface ClockView {
  appId: number;
  hubId: number;
  offsetSeconds: number;
  installTime: number;
  realTime: number;
}

describe('an install’s own clock', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  }, 30_000);
  afterAll(() => t.close());

  const clockUrl = (f: Pick<OAuthFixture, 'appId' | 'hubId'>) =>
    `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/clock`;
  const advance = async (f: OAuthFixture, advanceSeconds: number): Promise<ClockView> => {
    const r = await t.admin('POST', clockUrl(f), { advanceSeconds });
    expect([r.statusCode, r.body]).toEqual([200, expect.any(String)]);
    expect(wireProblems(INSTALL_CLOCK_SCHEMA, r.json())).toEqual([]);
    return r.json();
  };
  const getClock = async (f: OAuthFixture): Promise<ClockView> => {
    const r = await t.admin('GET', clockUrl(f));
    expect([r.statusCode, r.body]).toEqual([200, expect.any(String)]);
    expect(wireProblems(INSTALL_CLOCK_SCHEMA, r.json())).toEqual([]);
    return r.json();
  };
  const crm = (token: string) => t.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${token}` } });
  const introspect = (f: OAuthFixture, token: string) =>
    t.inject({
      method: 'POST',
      url: '/oauth/2026-03/token/introspect',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: f.clientId, client_secret: f.clientSecret, token }).toString(),
    });
  const metadata = (token: string) => t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${token}` });
  const expectExpired = (r: LightMyRequestResponse, minutes: number, status?: string) => {
    expect(r.statusCode).toBe(401);
    expectOAuthSchema('Error', r.json());
    expect(r.json()).toMatchObject({
      category: 'EXPIRED_AUTHENTICATION',
      message: `The OAuth token used to make this call expired ${minutes} minute(s) ago.`,
      ...(status ? { status } : {}),
    });
  };

  it('acceptance: after advanceSeconds 1801 the earlier token is expired (CRM, metadata, introspection), another install’s works, a refresh gives a working token', async () => {
    const f = await oauthFixture(t, SCOPES);
    const g = await oauthFixture(t, SCOPES);
    const mine = await installAndExchange(t, f);
    const theirs = await installAndExchange(t, g);
    const real = t.clock.now();

    expect(await advance(f, 1801)).toEqual({
      appId: f.appId,
      hubId: f.hubId,
      offsetSeconds: 1801,
      installTime: real + 1_801_000,
      realTime: real,
    });

    const refused = await crm(mine.access_token);
    expectExpired(refused, 1);
    expect(refused.json().context).toEqual({ expiredAt: [new Date(real + 1_800_000).toISOString()] });
    expectExpired(await metadata(mine.access_token), 1, 'EXPIRED_ACCESS_TOKEN');
    expect((await introspect(f, mine.access_token)).json()).toEqual({ active: false });

    // The other install runs on real time.
    expect((await crm(theirs.access_token)).statusCode).toBe(200);
    expect((await introspect(g, theirs.access_token)).json()).toMatchObject({ active: true, hub_id: g.hubId });

    // The refresh grant issues in the install's time: the new token lives its whole 30 minutes of it.
    const r = await refresh(t, f, mine.refresh_token);
    expect(r.statusCode).toBe(200);
    const fresh = (r.json() as { access_token: string; expires_in: number }).access_token;
    expect(r.json().expires_in).toBe(1800);
    expect((await crm(fresh)).statusCode).toBe(200);
    const info = await metadata(fresh);
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({ expires_in: 1800, hub_id: f.hubId });
    expect(info.json().signed_access_token.expiresAt).toBe(real + 1_801_000 + 1_800_000);
    expect((await introspect(f, fresh)).json()).toMatchObject({ active: true, hub_id: f.hubId });

    await advance(f, 1799);
    expect((await crm(fresh)).statusCode).toBe(200);
    await advance(f, 181);
    expectExpired(await crm(fresh), 3);
    expectExpired(await metadata(fresh), 3, 'EXPIRED_ACCESS_TOKEN');
    expect((await introspect(f, fresh)).json()).toEqual({ active: false });
    expect((await crm(theirs.access_token)).statusCode).toBe(200);
    expect(await getClock(f)).toMatchObject({ offsetSeconds: 1801 + 1799 + 181, installTime: real + 3_781_000 });
  });

  it('authorization codes expire by the install’s time (EXPIRED_AUTH_CODE); a code issued after advancing lives its whole lifetime', async () => {
    const f = await oauthFixture(t, SCOPES);
    await installAndExchange(t, f);
    const early = await installCode(t, f); // approving again while installed: a code of the same install
    await advance(f, 301); // AUTH_CODE_TTL_SECONDS defaults to 300
    const r = await exchangeCode(t, f, early.code);
    expect(r.statusCode).toBe(400);
    expectOAuthSchema('Error', r.json());
    expect(r.json()).toMatchObject({ status: 'EXPIRED_AUTH_CODE', error: 'invalid_grant' });

    const late = await installCode(t, f);
    t.clock.advance(299_000); // real time and install time both move on, short of the code's lifetime
    try {
      const ok = await exchangeCode(t, f, late.code);
      expect(ok.statusCode).toBe(200);
      expect((await crm(ok.json().access_token)).statusCode).toBe(200);
    } finally {
      t.clock.advance(-299_000);
    }
  });

  it('an authorization code issued ahead keeps its age across DELETE: expired 300 s after its issue, not a day later', async () => {
    const f = await oauthFixture(t, SCOPES);
    await installAndExchange(t, f);
    await advance(f, 86_400);
    const ahead = await installCode(t, f);
    const twin = await installCode(t, f);
    expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204);
    t.clock.advance(299_000);
    try {
      expect((await exchangeCode(t, f, twin.code)).statusCode).toBe(200);
      t.clock.advance(1000);
      const r = await exchangeCode(t, f, ahead.code);
      expect([r.statusCode, r.json().status]).toEqual([400, 'EXPIRED_AUTH_CODE']);
    } finally {
      t.clock.advance(-300_000);
    }
  });

  it('GET shows the offset, DELETE returns the install to real time; both recorded as events with the admin as actor', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await installAndExchange(t, f);
    const real = t.clock.now();
    expect(await getClock(f)).toEqual({
      appId: f.appId,
      hubId: f.hubId,
      offsetSeconds: 0,
      installTime: real,
      realTime: real,
    });
    await advance(f, 3600);
    await advance(f, 0); // records nothing
    expect(await getClock(f)).toMatchObject({ offsetSeconds: 3600, installTime: real + 3_600_000 });
    expectExpired(await crm(tokens.access_token), 30);

    const d = await t.admin('DELETE', clockUrl(f));
    expect([d.statusCode, d.body]).toEqual([204, '']);
    expect(await getClock(f)).toMatchObject({ offsetSeconds: 0, installTime: real });
    // The hour the advance added passed on the clock that issued the token: a reset does not give it
    // back (issue 41, item 4), so the token stays expired, 30 minutes ago as before.
    expectExpired(await crm(tokens.access_token), 30);
    expect((await introspect(f, tokens.access_token)).json()).toEqual({ active: false });
    // A token issued now follows real time.
    const fresh = (await refresh(t, f, tokens.refresh_token)).json().access_token as string;
    expect((await metadata(fresh)).json().signed_access_token.expiresAt).toBe(real + 1_800_000);
    expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204); // already real time: nothing recorded

    const stream = `oauth.install-clock-${f.appId}-${f.hubId}`;
    const events = (await allEvents(t)).filter((e) => e.streamId === stream);
    expect(events.map((e) => [e.type, e.data, e.metadata.actor])).toEqual([
      [
        'oauth.InstallClockAdvanced',
        { appId: f.appId, hubId: f.hubId, advanceSeconds: 3600, offsetSeconds: 3600, advancedAt: real },
        'admin',
      ],
      ['oauth.InstallClockReset', { appId: f.appId, hubId: f.hubId, offsetSeconds: 3600, resetAt: real }, 'admin'],
    ]);
    const audit = await t.admin('GET', `/admin/v1/events?stream=${encodeURIComponent(stream)}`);
    expect(audit.statusCode).toBe(200);
    expect((audit.json() as { results: { type: string }[] }).results.map((e) => e.type)).toEqual([
      'oauth.InstallClockAdvanced',
      'oauth.InstallClockReset',
    ]);
  });

  it('expire-access-tokens under an advanced clock expires the tokens issued in the install’s time; the next one works', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await installAndExchange(t, f);
    await advance(f, 600);
    const ahead = (await refresh(t, f, tokens.refresh_token)).json().access_token as string;
    expect((await crm(ahead)).statusCode).toBe(200);
    const e = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/expire-access-tokens`);
    expect(e.statusCode).toBe(200);
    expect(e.json()).toMatchObject({ expiredAt: t.clock.now() + 600_000 });
    expectExpired(await crm(ahead), 1);
    const next = await refresh(t, f, tokens.refresh_token);
    expect((await crm(next.json().access_token)).statusCode).toBe(200);
  });

  it('daily API usage stays on real time', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await installAndExchange(t, f);
    await advance(f, 86_400 * 3);
    const after = await refresh(t, f, tokens.refresh_token);
    const usage = await t.inject({
      method: 'GET',
      url: '/account-info/v3/api-usage/daily/private-apps',
      headers: { authorization: `Bearer ${after.json().access_token}` },
    });
    expect(usage.statusCode).toBe(200);
    expect(usage.json().results[0].collectedAt).toBe(new Date(t.clock.now()).toISOString());
  });

  it('uninstall and re-install keep the clock (it belongs to the app in the account); DELETE still works while uninstalled', async () => {
    const f = await oauthFixture(t, SCOPES);
    await installAndExchange(t, f);
    await advance(f, 7200);
    expect((await t.admin('DELETE', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}`)).statusCode).toBe(204);
    expect(await getClock(f)).toMatchObject({ offsetSeconds: 7200 });
    // Advancing needs an install; reading and resetting a kept clock do not.
    expect((await t.admin('POST', clockUrl(f), { advanceSeconds: 1 })).statusCode).toBe(404);

    const again = await installAndExchange(t, f);
    const info = await metadata(again.access_token);
    expect(info.json().signed_access_token.expiresAt).toBe(t.clock.now() + 7_200_000 + 1_800_000);
    expect((await crm(again.access_token)).statusCode).toBe(200);

    expect((await t.admin('DELETE', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}`)).statusCode).toBe(204);
    expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204);
    expect((await t.admin('GET', clockUrl(f))).statusCode).toBe(404);
  });

  it('advance, expire-access-tokens, DELETE: later refreshes mint tokens of real time that live their 30 minutes, not until 2036 (issue 41, item 4)', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await installAndExchange(t, f);
    await advance(f, 10 * 365 * 86_400 - 3600);
    const e = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/expire-access-tokens`);
    expect(e.statusCode).toBe(200);
    expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204);
    const real = t.clock.now();
    const r = await refresh(t, f, tokens.refresh_token);
    expect([r.statusCode, r.json().expires_in]).toEqual([200, 1800]);
    const fresh = r.json().access_token as string;
    expect((await metadata(fresh)).json()).toMatchObject({ expires_in: 1800 });
    expect((await metadata(fresh)).json().signed_access_token.expiresAt).toBe(real + 1_800_000);
    expect((await crm(fresh)).statusCode).toBe(200);
    t.clock.advance(1_799_000);
    try {
      expect((await crm(fresh)).statusCode).toBe(200);
      t.clock.advance(1000);
      expectExpired(await crm(fresh), 1);
      expect((await introspect(f, fresh)).json()).toEqual({ active: false });
    } finally {
      t.clock.advance(-1_800_000);
    }
  });

  it('after DELETE, tokens issued ahead live out their 30 minutes in real time; an uninstall stops them for good, even a day on', async () => {
    const f = await oauthFixture(t, SCOPES);
    const g = await oauthFixture(t, SCOPES);
    const tokens = await installAndExchange(t, f);
    await installAndExchange(t, g);
    await advance(f, 2 * 86_400);
    const ahead = (await refresh(t, f, tokens.refresh_token)).json().access_token as string;
    expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204);
    expect((await crm(ahead)).statusCode).toBe(200); // issued just now on the clock that issued it
    expect((await t.admin('DELETE', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}`)).statusCode).toBe(204);
    expect([(await crm(ahead)).statusCode, (await crm(ahead)).json().category]).toEqual([
      401,
      'INVALID_AUTHENTICATION',
    ]);
    const day = 25 * 3_600_000;
    t.clock.advance(day);
    try {
      // Another uninstall makes the revocations drop what they no longer need; the first uninstall's stays.
      expect((await t.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`)).statusCode).toBe(204);
      expect((await crm(ahead)).statusCode).toBe(401);
      expect((await introspect(f, ahead)).json()).toEqual({ active: false });
    } finally {
      t.clock.advance(-day);
    }
  });

  it('a token revoked while expired in the install’s time stays revoked after DELETE', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await installAndExchange(t, f);
    await advance(f, 1801);
    const revoked = await t.inject({
      method: 'POST',
      url: '/oauth/2026-03/token/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        client_id: f.clientId,
        client_secret: f.clientSecret,
        token: tokens.access_token,
      }).toString(),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204);
    // Expired still (its 30 minutes passed on the clock that issued it), and revoked besides.
    expect([(await crm(tokens.access_token)).statusCode, (await crm(tokens.access_token)).json().category]).toEqual([
      401,
      'EXPIRED_AUTHENTICATION',
    ]);
    expect((await introspect(f, tokens.access_token)).json()).toEqual({ active: false });
  });

  it('a rebuild of the projection from zero restores every offset', async () => {
    const f = await oauthFixture(t, SCOPES);
    const g = await oauthFixture(t, SCOPES);
    const mine = await installAndExchange(t, f);
    await installAndExchange(t, g);
    await advance(f, 1801);
    await advance(g, 50);
    await t.admin('DELETE', clockUrl(g));
    await advance(g, 70);
    await t.app.get(ProjectionRunner).rebuild('oauth-install-clocks');
    expect(await getClock(f)).toMatchObject({ offsetSeconds: 1801 });
    expect(await getClock(g)).toMatchObject({ offsetSeconds: 70 });
    expectExpired(await crm(mine.access_token), 1);
  });

  it('/docs shows the clock’s own wire schema for POST and GET', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
      >;
    };
    const ops = doc.paths['/admin/v1/accounts/{hubId}/installs/{appId}/clock']!;
    for (const m of ['post', 'get'])
      expect(ops[m]!.responses['200']!.content!['application/json']!.schema).toEqual(INSTALL_CLOCK_SCHEMA);
    expect(Object.keys(ops).sort()).toEqual(['delete', 'get', 'post']);
  });

  it('bad input on every clock route: HubSpot Error bodies, nothing stored', async () => {
    const f = await oauthFixture(t, SCOPES);
    await installAndExchange(t, f);
    const notInstalled = await oauthFixture(t, SCOPES);
    const before = (await allEvents(t)).length;
    const url = clockUrl(f);
    const expectError = (r: LightMyRequestResponse, status: number, category: string) => {
      expect([r.statusCode, r.json().category]).toEqual([status, category]);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expectOAuthSchema('Error', r.json());
    };

    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const body = method === 'POST' ? { advanceSeconds: 1 } : undefined;
      // Unknown account, unknown app, an app not installed there.
      expectError(
        await t.admin(method, clockUrl({ hubId: 2_000_000_000, appId: f.appId }), body),
        404,
        'OBJECT_NOT_FOUND',
      );
      expectError(
        await t.admin(method, clockUrl({ hubId: f.hubId, appId: 2_000_000_000 }), body),
        404,
        'OBJECT_NOT_FOUND',
      );
      expectError(await t.admin(method, clockUrl(notInstalled), body), 404, 'OBJECT_NOT_FOUND');
      // Ids that are not ids.
      for (const bad of ['abc', '-1', '0', '99999999999999999999', '1.5']) {
        expectError(
          await t.admin(method, `/admin/v1/accounts/${bad}/installs/${f.appId}/clock`, body),
          400,
          'VALIDATION_ERROR',
        );
        expectError(
          await t.admin(method, `/admin/v1/accounts/${f.hubId}/installs/${bad}/clock`, body),
          400,
          'VALIDATION_ERROR',
        );
      }
      // No admin key, a wrong one.
      expectError(await t.inject({ method, url, ...(body ? { payload: body } : {}) }), 401, 'INVALID_AUTHENTICATION');
      expectError(
        await t.inject({
          method,
          url,
          headers: { authorization: `Bearer ${TEST_ADMIN_KEY}x` },
          ...(body ? { payload: body } : {}),
        }),
        401,
        'INVALID_AUTHENTICATION',
      );
    }

    for (const [body, field] of [
      [{ advanceSeconds: -1 }, 'advanceSeconds'],
      [{ advanceSeconds: 1.5 }, 'advanceSeconds'],
      [{ advanceSeconds: '60' }, 'advanceSeconds'],
      [{ advanceSeconds: null }, 'advanceSeconds'],
      [{ advanceSeconds: 315_360_001 }, 'advanceSeconds'],
      [{ advanceSeconds: 1e300 }, 'advanceSeconds'],
      [{}, 'advanceSeconds'],
      [{ advanceSeconds: 5, extra: true }, 'extra'],
      [[{ advanceSeconds: 5 }], 'body'],
    ] as const) {
      const r = await t.admin('POST', url, body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect((r.json() as { errors: { in: string }[] }).errors.map((e) => e.in)).toContain(field);
    }
    // Cumulative bound: within the bound alone, past it with what is already there.
    expect((await advance(f, 315_360_000 - 10)).offsetSeconds).toBe(315_359_990);
    const past = await t.admin('POST', url, { advanceSeconds: 11 });
    expectError(past, 400, 'VALIDATION_ERROR');
    expect(past.json().errors[0]).toMatchObject({ in: 'advanceSeconds', code: 'TOO_LARGE' });
    // Not JSON at all.
    const broken = await t.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
      payload: '{"advanceSeconds":',
    });
    expectError(broken, 400, 'VALIDATION_ERROR');

    const stored = (await allEvents(t)).slice(before);
    expect(stored.map((e) => e.type)).toEqual(['oauth.InstallClockAdvanced']);
  });
});

describe('an install’s clock across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'install-clock-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is reloaded from the read model: the offset and what it expires stay', async () => {
    const first = await startTestApp({ dataDir });
    const f = await oauthFixture(first, SCOPES);
    const tokens = await installAndExchange(first, f);
    const url = `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/clock`;
    expect((await first.admin('POST', url, { advanceSeconds: 1801 })).statusCode).toBe(200);
    await first.close({ keepData: true });

    const second = await startTestApp({ dataDir, clock: first.clock });
    try {
      expect((await second.admin('GET', url)).json()).toMatchObject({ offsetSeconds: 1801 });
      const r = await second.inject({
        method: 'GET',
        url: CRM,
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect([r.statusCode, r.json().category]).toEqual([401, 'EXPIRED_AUTHENTICATION']);
    } finally {
      await second.close({ keepData: true });
    }
  });

  it('the clock’s eras are reloaded too: a token issued ahead before a reset keeps its age after a restart (issue 41, item 4)', async () => {
    const first = await startTestApp({ dataDir });
    const f = await oauthFixture(first, SCOPES);
    const tokens = await installAndExchange(first, f);
    const url = `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/clock`;
    expect((await first.admin('POST', url, { advanceSeconds: 86_400 })).statusCode).toBe(200);
    const ahead = (await refresh(first, f, tokens.refresh_token)).json().access_token as string;
    expect((await first.admin('DELETE', url)).statusCode).toBe(204);
    await first.close({ keepData: true });

    const second = await startTestApp({ dataDir, clock: first.clock });
    const crmStatus = async (token: string) =>
      (await second.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${token}` } })).statusCode;
    try {
      expect(await crmStatus(ahead)).toBe(200);
      second.clock.advance(1_800_000); // its 30 minutes, in real time: not the day ahead it was issued in
      expect(await crmStatus(ahead)).toBe(401);
      expect(await crmStatus(tokens.access_token)).toBe(401);
    } finally {
      second.clock.advance(-1_800_000);
      await second.close({ keepData: true });
    }
  });
});
