import { Client } from '@hubspot/api-client';
import type { LightMyRequestResponse } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import {
  allEvents,
  installAndExchange,
  installCode,
  oauthFixture,
  refresh,
  type OAuthFixture,
} from '../support/oauth-fixtures';
import { validateComponent, validateResponse } from '../support/limits-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { DemoSeeder } from '../../src/directory';
import { DirectoryQueries } from '../../src/directory/directory.queries';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

const VERSIONS = ['v3', '2026-03', '2026-09'] as const;
const specFile = (version: string, name: string) => `${version}/${name}.json`;

/** A HubSpot Error body (the spec's Error schema), JSON content type, the given status and category. */
function expectHubSpotError(r: LightMyRequestResponse, status: number, category: string) {
  expect({ status: r.statusCode, category: (r.json() as { category?: string }).category }).toEqual({
    status,
    category,
  });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(validateComponent('2026-03/accountInfo.json', 'Error', r.json())).toEqual([]);
}

describe('app lifecycle: external-install uninstall and account-info details at v3, 2026-03, 2026-09', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(() => t.close());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const form = (url: string, fields: Record<string, string>) =>
    t.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const introspect = (v: string, f: OAuthFixture, token: string) =>
    form(`/oauth/${v}/token/introspect`, { client_id: f.clientId, client_secret: f.clientSecret, token });
  /** The version's CRM limits path (the fixture's crm.objects.contacts.read is accepted at every version). */
  const limitsUrl = (v: string) => `${v === 'v3' ? '/crm/v3/limits' : `/crm/limits/${v}`}/calculated-properties`;

  describe('GET /account-info/{version}/details', () => {
    let f: OAuthFixture;
    let accessToken: string;
    beforeAll(async () => {
      f = await oauthFixture(t);
      accessToken = (await installAndExchange(t, f)).access_token;
    });

    it.each(VERSIONS)('%s: the PortalInformationResponse of the token account, valid against the spec', async (v) => {
      const r = await t.inject({ method: 'GET', url: `/account-info/${v}/details`, headers: bearer(accessToken) });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const body = r.json() as Record<string, unknown>;
      expect(validateResponse(specFile(v, 'accountInfo'), 'GET', `/account-info/${v}/details`, body)).toEqual([]);
      // Exactly the schema's properties: nothing undeclared.
      expect(Object.keys(body).sort()).toEqual([
        'accountType',
        'additionalCurrencies',
        'companyCurrency',
        'dataHostingLocation',
        'portalId',
        'timeZone',
        'uiDomain',
        'utcOffset',
        'utcOffsetMilliseconds',
      ]);
      // The test clock stands at 2026-11-22 09:00 UTC: New York is on EST then.
      expect(body).toEqual({
        portalId: f.hubId,
        accountType: 'STANDARD',
        timeZone: 'America/New_York',
        companyCurrency: 'USD',
        additionalCurrencies: [],
        utcOffset: '-05:00',
        utcOffsetMilliseconds: -18_000_000,
        uiDomain: 'app.hubspot.com',
        dataHostingLocation: 'na1',
      });
    });

    it('settings from the admin API (create and PATCH); the offset follows the clock across DST', async () => {
      const eu = await createAccount(t, { hublet: 'eu1' });
      const created = await t.admin('POST', '/admin/v1/accounts', {
        domain: 'settings-at-create.example.com',
        tier: 'starter',
        hublet: 'eu1',
        accountType: 'APP_DEVELOPER',
        timeZone: 'Europe/London',
        companyCurrency: 'GBP',
        additionalCurrencies: ['EUR', 'USD'],
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({
        hublet: 'eu1',
        accountType: 'APP_DEVELOPER',
        timeZone: 'Europe/London',
        companyCurrency: 'GBP',
        additionalCurrencies: ['EUR', 'USD'],
      });
      const app = await createApp(t, { developerHubId: f.hubId });
      const tokenFor = (hubId: number) => mintCardsToken(t, { hubId, appId: app.appId, scopes: ['oauth'] });

      const before = await t.inject({
        method: 'GET',
        url: '/account-info/2026-09/details',
        headers: bearer(tokenFor(eu.hubId)),
      });
      expect(before.json()).toMatchObject({
        timeZone: 'Europe/Berlin',
        companyCurrency: 'EUR',
        uiDomain: 'app-eu1.hubspot.com',
        dataHostingLocation: 'eu1',
        utcOffset: '+01:00',
      });

      const patched = await t.admin('PATCH', `/admin/v1/accounts/${eu.hubId}`, {
        timeZone: 'America/Los_Angeles',
        additionalCurrencies: ['USD', 'CHF'],
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json()).toMatchObject({
        hubId: eu.hubId,
        timeZone: 'America/Los_Angeles',
        companyCurrency: 'EUR',
        additionalCurrencies: ['USD', 'CHF'],
      });
      const after = await t.inject({
        method: 'GET',
        url: '/account-info/v3/details',
        headers: bearer(tokenFor(eu.hubId)),
      });
      expect(after.json()).toMatchObject({ timeZone: 'America/Los_Angeles', utcOffset: '-08:00' });

      // Half a year later Los Angeles is on daylight saving time: the offset is computed for now.
      const saved = t.clock.now();
      try {
        t.clock.set(Date.UTC(2027, 6, 1, 12));
        const summer = await t.inject({
          method: 'GET',
          url: '/account-info/2026-03/details',
          headers: bearer(tokenFor(eu.hubId)),
        });
        expect(summer.json()).toMatchObject({ utcOffset: '-07:00', utcOffsetMilliseconds: -25_200_000 });
      } finally {
        t.clock.set(saved);
      }

      const settingsEvents = (await allEvents(t)).filter(
        (e) => e.type === 'directory.AccountSettingsChanged' && (e.data as { hubId: number }).hubId === eu.hubId,
      );
      expect(settingsEvents).toHaveLength(1);
      // The same values again change nothing and record nothing.
      expect(
        (await t.admin('PATCH', `/admin/v1/accounts/${eu.hubId}`, { timeZone: 'America/Los_Angeles' })).statusCode,
      ).toBe(200);
      expect(
        (await allEvents(t)).filter(
          (e) => e.type === 'directory.AccountSettingsChanged' && (e.data as { hubId: number }).hubId === eu.hubId,
        ),
      ).toHaveLength(1);
    });

    it('bad settings: VALIDATION_ERROR per field, unknown account 404, and nothing stored', async () => {
      const account = await createAccount(t);
      const head = (await allEvents(t)).length;
      const bad = await t.admin('PATCH', `/admin/v1/accounts/${account.hubId}`, {
        timeZone: 'Mars/Olympus_Mons',
        companyCurrency: 'usd',
        additionalCurrencies: ['ZZZ'],
        accountType: 'PARTNER',
      });
      expectHubSpotError(bad, 400, 'VALIDATION_ERROR');
      expect((bad.json() as { errors: Array<{ in: string }> }).errors.map((e) => e.in).sort()).toEqual(
        ['accountType', 'companyCurrency'].sort(),
      );
      const unknownZone = await t.admin('PATCH', `/admin/v1/accounts/${account.hubId}`, {
        timeZone: 'Mars/Olympus_Mons',
        additionalCurrencies: ['ZZZ', 'USD'],
      });
      expectHubSpotError(unknownZone, 400, 'VALIDATION_ERROR');
      expect((unknownZone.json() as { errors: Array<{ in: string }> }).errors.map((e) => e.in)).toEqual([
        'timeZone',
        'additionalCurrencies[0]',
        'additionalCurrencies[1]',
      ]);
      for (const payload of [
        '[]',
        '"x"',
        '{"timeZone": 5}',
        '{"additionalCurrencies": "USD"}',
        '{"timeZone": "Europe/Paris\\u0000"}',
      ]) {
        const r = await t.inject({
          method: 'PATCH',
          url: `/admin/v1/accounts/${account.hubId}`,
          headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
          payload,
        });
        expectHubSpotError(r, 400, 'VALIDATION_ERROR');
      }
      expectHubSpotError(
        await t.admin('PATCH', '/admin/v1/accounts/999', { timeZone: 'UTC' }),
        404,
        'OBJECT_NOT_FOUND',
      );
      expectHubSpotError(
        await t.admin('PATCH', '/admin/v1/accounts/abc', { timeZone: 'UTC' }),
        400,
        'VALIDATION_ERROR',
      );
      const noAdmin = await t.inject({
        method: 'PATCH',
        url: `/admin/v1/accounts/${account.hubId}`,
        payload: { timeZone: 'UTC' },
      });
      expect(noAdmin.statusCode).toBe(401);
      // Bad settings at creation claim no domain either: the same domain can be created afterwards.
      const badCreate = await t.admin('POST', '/admin/v1/accounts', {
        domain: 'bad-settings.example.com',
        tier: 'free',
        timeZone: 'Nowhere/Nope',
      });
      expectHubSpotError(badCreate, 400, 'VALIDATION_ERROR');
      expect((await allEvents(t)).length).toBe(head);
      expect(
        (await t.admin('POST', '/admin/v1/accounts', { domain: 'bad-settings.example.com', tier: 'free' })).statusCode,
      ).toBe(201);
    });

    it('auth: no token 401, a token without oauth scope 403 MISSING_SCOPES, an unknown account 404', async () => {
      for (const v of VERSIONS) {
        expectHubSpotError(
          await t.inject({ method: 'GET', url: `/account-info/${v}/details` }),
          401,
          'INVALID_AUTHENTICATION',
        );
        expectHubSpotError(
          await t.inject({ method: 'GET', url: `/account-info/${v}/details`, headers: bearer('not-a-token') }),
          401,
          'INVALID_AUTHENTICATION',
        );
      }
      const noScope = mintCardsToken(t, { hubId: f.hubId, appId: f.appId, scopes: ['crm.objects.contacts.read'] });
      const forbidden = await t.inject({
        method: 'GET',
        url: '/account-info/2026-03/details',
        headers: bearer(noScope),
      });
      expectHubSpotError(forbidden, 403, 'MISSING_SCOPES');
      const ghost = mintCardsToken(t, { hubId: 424242, appId: f.appId, scopes: ['oauth'] });
      expectHubSpotError(
        await t.inject({ method: 'GET', url: '/account-info/2026-03/details', headers: bearer(ghost) }),
        404,
        'OBJECT_NOT_FOUND',
      );
      expect(
        (await t.inject({ method: 'GET', url: '/account-info/2026-01/details', headers: bearer(accessToken) }))
          .statusCode,
      ).toBe(404);
    });
  });

  it('@hubspot/api-client v14: apiRequest reaches both endpoints; the install URL is rebuilt on basePath', async () => {
    const f = await oauthFixture(t);
    const { access_token: accessToken } = await installAndExchange(t, f);
    const client = new Client({ accessToken, basePath: t.url, numberOfApiCallRetries: 0 });
    const details = await client.apiRequest({ method: 'GET', path: '/account-info/2026-03/details' });
    expect(details.status).toBe(200);
    const body = await details.json();
    expect(validateResponse('2026-03/accountInfo.json', 'GET', '/account-info/2026-03/details', body)).toEqual([]);
    expect(body).toMatchObject({ portalId: f.hubId });
    const uninstall = await client.apiRequest({ method: 'DELETE', path: '/appinstalls/2026-03/external-install' });
    expect(uninstall.status).toBe(204);
    const again = await client.apiRequest({ method: 'DELETE', path: '/appinstalls/2026-03/external-install' });
    // The bearer guard refuses every access token of an uninstalled install before the uninstall runs.
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' });

    // getAuthorizationUrl hard-codes https://app.hubspot.com: keep its path and query, put them on our base URL.
    const hubspotUrl = new URL(client.oauth.getAuthorizationUrl(f.clientId, f.redirectUri, f.requiredScopes.join(' ')));
    expect(hubspotUrl.origin).toBe('https://app.hubspot.com');
    const installUrl = new URL(`${hubspotUrl.pathname}${hubspotUrl.search}`, t.url);
    const page = await fetch(installUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it("README's PKCE recipe: tokensApi.create has no code_verifier, apiRequest with a form body does", async () => {
    const f = await oauthFixture(t);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const { code } = await installCode(t, f, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    const client = new Client({ basePath: t.url, numberOfApiCallRetries: 0 });
    const r = await client.apiRequest({
      method: 'POST',
      path: '/oauth/v1/token',
      defaultJson: false,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: f.clientId,
        client_secret: f.clientSecret,
        redirect_uri: f.redirectUri,
        code,
        code_verifier: verifier,
      }).toString(),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ token_type: 'bearer', expires_in: 1800 });
  });

  it('the demo seed sets every account settings from seed/demo.json', async () => {
    const seed = DemoSeeder.load();
    await t.app.get(DemoSeeder).apply(seed);
    const directory = t.app.get(DirectoryQueries);
    for (const { domain, hublet: _hublet, tier: _tier, ...settings } of [
      seed.developerAccount,
      ...seed.customerAccounts,
    ]) {
      const account = directory.findAccountByDomain(domain)!;
      expect(directory.getAccountSettings(account.hubId)).toEqual({ additionalCurrencies: [], ...settings });
    }
    expect(seed.developerAccount).toMatchObject({ accountType: 'APP_DEVELOPER' });
  });

  describe('DELETE /appinstalls/{version}/external-install', () => {
    it.each(VERSIONS)(
      '%s: the app uninstalls itself from the token account: 204, AppUninstalled, refresh and access tokens dead',
      async (v) => {
        const f = await oauthFixture(t);
        const tokens = await installAndExchange(t, f);
        expect(
          (await t.inject({ method: 'GET', url: limitsUrl(v), headers: bearer(tokens.access_token) })).statusCode,
        ).toBe(200);
        expect((await introspect(v, f, tokens.access_token)).json()).toMatchObject({ active: true });
        const r = await t.inject({
          method: 'DELETE',
          url: `/appinstalls/${v}/external-install`,
          headers: bearer(tokens.access_token),
        });
        expect(r.statusCode).toBe(204);
        expect(r.body).toBe('');

        const uninstalled = (await allEvents(t)).filter(
          (e) =>
            e.type === 'oauth.AppUninstalled' &&
            (e.data as { appId: number; hubId: number }).appId === f.appId &&
            (e.data as { hubId: number }).hubId === f.hubId,
        );
        expect(uninstalled).toHaveLength(1);
        expect(uninstalled[0]!.metadata.actor).toBe(`app:${f.appId}/hub:${f.hubId}/user:${f.userId}`);
        // The same effects as the admin uninstall: no longer listed, refresh grants refused.
        const installs = await t.admin('GET', `/admin/v1/apps/${f.appId}/installs`);
        expect((installs.json() as { results: Array<{ hubId: number }> }).results.map((i) => i.hubId)).not.toContain(
          f.hubId,
        );
        const grant = await refresh(t, f, tokens.refresh_token);
        expect(grant.statusCode).toBe(400);
        // The same access token no longer works on a CRM endpoint, and introspects inactive.
        const crm = await t.inject({ method: 'GET', url: limitsUrl(v), headers: bearer(tokens.access_token) });
        expectHubSpotError(crm, 401, 'INVALID_AUTHENTICATION');
        expect(crm.json()).toMatchObject({
          status: 'error',
          message: expect.stringMatching(/^Authentication credentials not found\./) as unknown,
        });
        const info = await introspect(v, f, tokens.access_token);
        expect(info.statusCode).toBe(200);
        expect(info.json()).toEqual({ active: false });
      },
    );

    it('bad requests: no token 401, an app token 401, no oauth scope 403, not installed 404; nothing stored', async () => {
      const f = await oauthFixture(t);
      await installAndExchange(t, f);
      const other = await createApp(t, { developerHubId: f.hubId });
      // App tokens (client_credentials, listed at v3 and 2026-03) name no account: refused by both endpoints.
      const appTokens: string[] = [];
      for (const v of ['v3', '2026-03']) {
        const issued = await form(`/oauth/${v}/token`, {
          grant_type: 'client_credentials',
          client_id: f.clientId,
          client_secret: f.clientSecret,
        });
        expect(issued.json()).toMatchObject({ token_use: 'client_credentials' });
        appTokens.push((issued.json() as { access_token: string }).access_token);
      }
      const head = (await allEvents(t)).length;
      for (const appToken of appTokens) {
        for (const v of VERSIONS) {
          for (const [method, url] of [
            ['GET', `/account-info/${v}/details`],
            ['DELETE', `/appinstalls/${v}/external-install`],
          ] as const) {
            const r = await t.inject({ method, url, headers: bearer(appToken) });
            expectHubSpotError(r, 401, 'INVALID_AUTHENTICATION');
            expect((r.json() as { message: string }).message).toMatch(/does not accept an app token/);
          }
        }
      }
      // Still installed: the app tokens uninstalled nothing.
      const installs = await t.admin('GET', `/admin/v1/apps/${f.appId}/installs`);
      expect((installs.json() as { results: Array<{ hubId: number }> }).results.map((i) => i.hubId)).toContain(f.hubId);
      for (const v of VERSIONS) {
        expectHubSpotError(
          await t.inject({ method: 'DELETE', url: `/appinstalls/${v}/external-install` }),
          401,
          'INVALID_AUTHENTICATION',
        );
      }
      const noScope = mintCardsToken(t, { hubId: f.hubId, appId: f.appId, scopes: ['crm.objects.contacts.read'] });
      expectHubSpotError(
        await t.inject({ method: 'DELETE', url: '/appinstalls/2026-03/external-install', headers: bearer(noScope) }),
        403,
        'MISSING_SCOPES',
      );
      // A token of an app that was never installed in that account.
      const stranger = mintCardsToken(t, { hubId: f.hubId, appId: other.appId, scopes: ['oauth'] });
      expectHubSpotError(
        await t.inject({ method: 'DELETE', url: '/appinstalls/2026-09/external-install', headers: bearer(stranger) }),
        404,
        'OBJECT_NOT_FOUND',
      );
      expect(
        (await t.inject({ method: 'GET', url: '/appinstalls/2026-03/external-install', headers: bearer(stranger) }))
          .statusCode,
      ).toBe(404);
      // A DELETE whose JSON body is broken is still refused as such (only an empty body counts as none).
      const broken = await t.inject({
        method: 'DELETE',
        url: '/appinstalls/2026-03/external-install',
        headers: { ...bearer(stranger), 'content-type': 'application/json' },
        payload: '{',
      });
      expectHubSpotError(broken, 400, 'VALIDATION_ERROR');
      expect((await allEvents(t)).length).toBe(head);
    });
  });
});
