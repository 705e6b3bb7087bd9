import { Controller, Get, Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SigningKeyring, AccessTokenClaims, encodeAccessToken } from '../../src/oauth/domain/access-token';
import { InstallQueries } from '../../src/oauth/application/install.queries';
import { AuthorizeRequestValidator } from '../../src/oauth/application/authorize-request.validator';
import { OAuthModule } from '../../src/oauth/oauth.module';
import { Token } from '../../src/oauth/http/bearer-authentication';
import { Authenticated } from '../../src/platform/http/authentication';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { decodeScopes } from '../../src/platform/scopes/scope-catalog';
import {
  allEvents,
  expectOAuthError,
  installAndExchange,
  installCode,
  oauthFixture,
  OAuthFixture,
  refresh,
} from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { createAccount, createUser, startTestApp, TestApp } from '../support/test-app';

/** A well-formed S256 challenge (BASE64URL of 32 bytes). */
const CHALLENGE = Buffer.alloc(32, 7).toString('base64url');

/** A CRM-like endpoint behind the shared bearer guard. */
@Controller('test/oauth-guard-probe')
class GuardProbeController {
  @Get()
  @Authenticated({ by: 'bearer', scopes: ['crm.objects.contacts.read', 'crm.objects.deals.read'] })
  probe(@Token() token: AccessTokenClaims) {
    return { hubId: token.hubId, userId: token.userId, appId: token.appId, scopes: token.scopes };
  }
}
@Module({ controllers: [GuardProbeController] })
class GuardProbeModule {}

describe('OAuth token metadata, refresh-token deletion, installs, bearer guard', () => {
  let t: TestApp;
  let f: OAuthFixture;
  beforeAll(async () => {
    t = await startTestApp({ modules: [OAuthModule, GuardProbeModule] });
    f = await oauthFixture(t);
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });

  describe('GET /oauth/v1/access-tokens/{token}', () => {
    it('answers every AccessTokenInfoResponse field, with all 17 signed_access_token fields', async () => {
      const tokens = await installAndExchange(t, f);
      t.clock.advance(90_000);
      const r = await get(`/oauth/v1/access-tokens/${tokens.access_token}`);
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const body = r.json();
      expectOAuthSchema('AccessTokenInfoResponse', body, { strict: true });
      expect(Object.keys(body.signed_access_token)).toHaveLength(17);
      expect(body).toMatchObject({
        token: tokens.access_token,
        user: f.email,
        hub_domain: f.domain,
        hub_id: f.hubId,
        user_id: f.userId,
        app_id: f.appId,
        scopes: tokens.scopes,
        token_type: 'access',
        is_private_distribution: false,
      });
      expect(body.expires_in).toBeLessThanOrEqual(1800 - 90);
      expect(body.expires_in).toBeGreaterThanOrEqual(1800 - 91);
      const s = body.signed_access_token;
      expect(s).toMatchObject({
        appId: f.appId,
        hubId: f.hubId,
        userId: f.userId,
        installingUserId: f.userId,
        hublet: 'na1',
        isUserLevel: false,
      });
      expect(decodeScopes(Buffer.from(s.scopes, 'base64'))).toEqual(tokens.scopes);
      expect(s.appInstallId).toMatch(/^[0-9a-f]{16}$/);
      expect(Math.floor((s.expiresAt - t.clock.now()) / 1000)).toBe(body.expires_in);
    });

    it('malformed 400, tampered or unknown key 401 INVALID_AUTHENTICATION, expired 401 EXPIRED_AUTHENTICATION', async () => {
      const tokens = await installAndExchange(t, f);
      expectOAuthError(await get('/oauth/v1/access-tokens/not-a-token'), 400, 'BAD_ACCESS_TOKEN');
      expectOAuthError(await get(`/oauth/v1/access-tokens/${'a'.repeat(600)}`), 400, 'BAD_ACCESS_TOKEN');
      const [kid, payload, sig] = tokens.access_token.split('.') as [string, string, string];
      const tampered = `${kid}.${payload.slice(0, 10)}${payload[10] === 'A' ? 'B' : 'A'}${payload.slice(11)}.${sig}`;
      const tamperedBody = expectOAuthError(await get(`/oauth/v1/access-tokens/${tampered}`), 401, 'BAD_ACCESS_TOKEN');
      expect(tamperedBody.category).toBe('INVALID_AUTHENTICATION');
      const keys = t.app.get(SigningKeyring);
      const foreign = encodeAccessToken(
        {
          hubId: f.hubId,
          userId: f.userId,
          appId: f.appId,
          installingUserId: f.userId,
          hublet: 'na1',
          issuedAt: t.clock.now(),
          expiresAt: t.clock.now() + 1_800_000,
          scopes: ['oauth'],
        },
        { active: { kid: 'other', secret: randomBytes(32) }, secretFor: () => undefined },
      ).token;
      expect(keys.secretFor('other')).toBeUndefined();
      expectOAuthError(await get(`/oauth/v1/access-tokens/${foreign}`), 401, 'BAD_ACCESS_TOKEN');
      t.clock.advance(1_800_000 + 5 * 60_000);
      const expired = expectOAuthError(
        await get(`/oauth/v1/access-tokens/${tokens.access_token}`),
        401,
        'EXPIRED_ACCESS_TOKEN',
      );
      expect(expired.category).toBe('EXPIRED_AUTHENTICATION');
      expect(expired.message).toBe('The OAuth token used to make this call expired 5 minute(s) ago.');
    });
  });

  describe('GET and DELETE /oauth/v1/refresh-tokens/{token}', () => {
    it('GET answers RefreshTokenInfoResponse right after the token endpoint', async () => {
      const tokens = await installAndExchange(t, f);
      const r = await get(`/oauth/v1/refresh-tokens/${tokens.refresh_token}`);
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expectOAuthSchema('RefreshTokenInfoResponse', body, { strict: true });
      expect(body).toEqual({
        token: tokens.refresh_token,
        user: f.email,
        hub_domain: f.domain,
        scopes: tokens.scopes,
        hub_id: f.hubId,
        client_id: f.clientId,
        user_id: f.userId,
        token_type: 'refresh',
      });
    });

    it('DELETE 204; the access token still answers, the refresh fails, the app stays installed; a second DELETE is 204 too', async () => {
      const tokens = await installAndExchange(t, f);
      const del = await t.inject({ method: 'DELETE', url: `/oauth/v1/refresh-tokens/${tokens.refresh_token}` });
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      expect((await get(`/oauth/v1/access-tokens/${tokens.access_token}`)).statusCode).toBe(200);
      expectOAuthError(await refresh(t, f, tokens.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      const meta = expectOAuthError(
        await get(`/oauth/v1/refresh-tokens/${tokens.refresh_token}`),
        404,
        'BAD_REFRESH_TOKEN',
      );
      expect(meta.category).toBe('OBJECT_NOT_FOUND');
      expect(t.app.get(InstallQueries).isInstalled(f.appId, f.hubId)).toBe(true);
      const before = (await allEvents(t)).length;
      expect(
        (await t.inject({ method: 'DELETE', url: `/oauth/v1/refresh-tokens/${tokens.refresh_token}` })).statusCode,
      ).toBe(204);
      expect((await allEvents(t)).length).toBe(before);
    });

    it('an unknown refresh token is 404 BAD_REFRESH_TOKEN for GET and DELETE', async () => {
      expectOAuthError(await get('/oauth/v1/refresh-tokens/na1-unknown'), 404, 'BAD_REFRESH_TOKEN');
      expectOAuthError(
        await t.inject({ method: 'DELETE', url: '/oauth/v1/refresh-tokens/na1-unknown' }),
        404,
        'BAD_REFRESH_TOKEN',
      );
    });
  });

  describe('installs', () => {
    it('programmatic install: 201 {code, redirectUrl} with state, same events as the page', async () => {
      const g = await oauthFixture(t);
      const r = await t.admin('POST', `/admin/v1/apps/${g.appId}/installs`, {
        hubId: g.hubId,
        userId: g.userId,
        redirectUri: g.redirectUri,
        state: 'x y/&=',
      });
      expect(r.statusCode).toBe(201);
      const body = r.json();
      const url = new URL(body.redirectUrl);
      expect(`${url.origin}${url.pathname}`).toBe(g.redirectUri);
      expect(url.searchParams.get('code')).toBe(body.code);
      expect(url.searchParams.get('state')).toBe('x y/&=');
      const events = (await allEvents(t)).filter((e) => e.streamId === `oauth.install-${g.appId}-${g.hubId}`);
      expect(events.map((e) => e.type)).toEqual(['oauth.AppInstalled']);
      expect(events[0]!.data).toEqual({
        appId: g.appId,
        hubId: g.hubId,
        installId: expect.any(String),
        installingUserId: g.userId,
        scopes: body.scopes,
        installedAt: expect.any(Number),
      });
      // A second approval does not install again.
      await installCode(t, g);
      expect(
        (await allEvents(t)).filter(
          (e) => e.type === 'oauth.AppInstalled' && (e.data as { appId: number }).appId === g.appId,
        ),
      ).toHaveLength(1);
    });

    it('drops optional scopes the account tier cannot use; refuses required ones', async () => {
      const g = await oauthFixture(t, { tier: 'free' });
      const { scopes } = await installCode(t, g);
      expect([...scopes].sort()).toEqual(['crm.objects.contacts.read', 'oauth', 'tickets']);
      const h = await oauthFixture(t, {
        tier: 'starter',
        requiredScopes: ['oauth', 'crm.objects.custom.read'],
        optionalScopes: [],
      });
      const r = await t.admin('POST', `/admin/v1/apps/${h.appId}/installs`, {
        hubId: h.hubId,
        userId: h.userId,
        redirectUri: h.redirectUri,
      });
      expect(r.statusCode).toBe(400);
      expect(r.json().category).toBe('VALIDATION_ERROR');
    });

    it('refuses bad programmatic installs', async () => {
      const g = await oauthFixture(t);
      const stranger = await oauthFixture(t);
      const post = (appId: number, body: Record<string, unknown>) =>
        t.admin('POST', `/admin/v1/apps/${appId}/installs`, body);
      const ok = { hubId: g.hubId, userId: g.userId, redirectUri: g.redirectUri };
      expect((await post(999, ok)).statusCode).toBe(404);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...ok, redirectUri: `${g.redirectUri}/` }, 'redirect_uri'],
        [{ ...ok, redirectUri: 'https://app.example.com@evil.example/oauth/callback' }, 'redirect_uri'],
        [{ ...ok, userId: stranger.userId }, 'userId'],
        [{ ...ok, hubId: stranger.hubId }, 'userId'],
        [{ ...ok, scopes: ['oauth'] }, 'scope'],
        [{ ...ok, scopes: ['oauth', 'crm.objects.contacts.read', 'no.such.scope'] }, 'scope'],
        // PKCE, the page's rule: S256 only, named explicitly (RFC 7636 §4.3: no method means plain).
        [{ ...ok, codeChallenge: CHALLENGE }, 'codeChallengeMethod'],
        [{ ...ok, codeChallenge: CHALLENGE, codeChallengeMethod: 'plain' }, 'codeChallengeMethod'],
        [{ ...ok, codeChallengeMethod: 'S256' }, 'codeChallenge'],
        [{ ...ok, codeChallenge: 'too-short', codeChallengeMethod: 'S256' }, 'codeChallenge'],
        [{ ...ok, codeChallenge: `${CHALLENGE}~`, codeChallengeMethod: 'S256' }, 'codeChallenge'],
        [{ ...ok, hubId: 'x' }, 'hubId'],
        [{ userId: g.userId, redirectUri: g.redirectUri }, 'hubId'],
      ];
      for (const [body, field] of cases) {
        const r = await post(g.appId, body);
        expect({ body, status: r.statusCode }).toEqual({ body, status: 400 });
        expect(r.json().errors.map((e: { in: string }) => e.in)).toContain(field);
      }
      const noMethod = await post(g.appId, { ...ok, codeChallenge: CHALLENGE });
      expect(noMethod.json()).toMatchObject({
        category: 'VALIDATION_ERROR',
        message: expect.stringContaining('code_challenge_method is required'),
        errors: [expect.objectContaining({ in: 'codeChallengeMethod', code: 'REQUIRED' })],
      });
      // Nothing was recorded by the refused requests.
      expect((await allEvents(t)).filter((e) => e.streamId === `oauth.install-${g.appId}-${g.hubId}`)).toEqual([]);
      expect((await post(g.appId, { ...ok, codeChallenge: CHALLENGE, codeChallengeMethod: 'S256' })).statusCode).toBe(
        201,
      );
      const anon = await t.inject({ method: 'POST', url: `/admin/v1/apps/${g.appId}/installs`, payload: ok });
      expect(anon.statusCode).toBe(401);
    });

    it('admin install lists come a page at a time: after, limit (1–1000, default 100), paging.next.after', async () => {
      const g = await oauthFixture(t);
      const hubs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const account = await createAccount(t);
        const user = await createUser(t, { hubIds: [account.hubId] });
        await installCode(t, { ...g, hubId: account.hubId, userId: user.userId });
        hubs.push(account.hubId);
      }
      hubs.sort((a, b) => a - b);
      const list = (query: string) => t.admin('GET', `/admin/v1/apps/${g.appId}/installs${query}`);

      const all = await list('');
      expect(all.statusCode).toBe(200);
      expect(all.headers['content-type']).toMatch(/^application\/json/);
      expect(all.json().results.map((i: { hubId: number }) => i.hubId)).toEqual(hubs);
      expect(all.json().paging).toBeUndefined();

      const seen: number[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const r = await list(`?limit=2${after !== undefined ? `&after=${after}` : ''}`);
        expect(r.statusCode).toBe(200);
        const body = r.json() as { results: Array<{ hubId: number }>; paging?: { next: { after: string } } };
        expect(body.results.length).toBeLessThanOrEqual(2);
        seen.push(...body.results.map((i) => i.hubId));
        after = body.paging?.next.after;
        pages++;
      } while (after !== undefined);
      expect(seen).toEqual(hubs);
      expect(pages).toBe(3);

      // The account side pages by app id.
      const second = await oauthFixture(t);
      const h = hubs[0]!;
      const u = await createUser(t, { hubIds: [h] });
      await installCode(t, { ...second, hubId: h, userId: u.userId });
      const [low, high] = [g.appId, second.appId].sort((a, b) => a - b);
      const first = await t.admin('GET', `/admin/v1/accounts/${h}/installs?limit=1`);
      expect(first.json().results.map((i: { appId: number }) => i.appId)).toEqual([low]);
      expect(first.json().paging).toEqual({ next: { after: String(low) } });
      const rest = await t.admin('GET', `/admin/v1/accounts/${h}/installs?limit=1&after=${low}`);
      expect(rest.json()).toEqual({ results: [expect.objectContaining({ appId: high })] });

      for (const q of ['?limit=0', '?limit=1001', '?limit=x', '?after=-1']) {
        const r = await list(q);
        expect({ q, status: r.statusCode }).toEqual({ q, status: 400 });
        expect(r.json().category).toBe('VALIDATION_ERROR');
      }
    });

    it('uninstall: 204 and AppUninstalled; refresh tokens stop working; a second uninstall is 404', async () => {
      const g = await oauthFixture(t);
      const tokens = await installAndExchange(t, g);
      const queries = t.app.get(InstallQueries);
      expect(queries.isInstalled(g.appId, g.hubId)).toBe(true);
      expect(queries.listInstallsOfApp(g.appId, 0, 1000).map((i) => i.hubId)).toEqual([g.hubId]);
      expect(queries.listInstallsOfAccount(g.hubId, 0, 1000).map((i) => i.appId)).toEqual([g.appId]);
      expect((await t.admin('GET', `/admin/v1/apps/${g.appId}/installs`)).json().results).toHaveLength(1);

      const r = await t.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`);
      expect(r.statusCode).toBe(204);
      const uninstalled = (await allEvents(t)).filter(
        (e) => e.type === 'oauth.AppUninstalled' && (e.data as { appId: number }).appId === g.appId,
      );
      expect(uninstalled.map((e) => e.data)).toEqual([
        { appId: g.appId, hubId: g.hubId, installId: expect.any(String), uninstalledAt: t.clock.now() },
      ]);
      expect(queries.isInstalled(g.appId, g.hubId)).toBe(false);
      expect(queries.listInstallsOfApp(g.appId, 0, 1000)).toEqual([]);
      expectOAuthError(await refresh(t, g, tokens.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      expectOAuthError(await get(`/oauth/v1/refresh-tokens/${tokens.refresh_token}`), 404, 'BAD_REFRESH_TOKEN');
      expect((await t.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`)).statusCode).toBe(404);
      expect(
        (await t.inject({ method: 'DELETE', url: `/admin/v1/accounts/${g.hubId}/installs/${g.appId}` })).statusCode,
      ).toBe(401);
      expect((await t.admin('DELETE', `/admin/v1/accounts/abc/installs/${g.appId}`)).statusCode).toBe(400);
    });
  });

  describe('AuthorizeRequestValidator.validate (what the page shows)', () => {
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
        return 'accepted';
      } catch (e) {
        expect(e).toBeInstanceOf(HubSpotError);
        expect((e as HubSpotError).message.length).toBeGreaterThan(10);
        return (e as HubSpotError).extras.errors?.[0]?.code;
      }
    };
    it('checks client, then redirect URI (exactly), then scopes; takes scope or scopes', () => {
      const svc = t.app.get(AuthorizeRequestValidator);
      const ok = { clientId: f.clientId, redirectUri: f.redirectUri, scope: 'oauth crm.objects.contacts.read' };
      expect(svc.validate({ ...ok, optionalScope: 'tickets' })).toMatchObject({
        app: { appId: f.appId, name: expect.any(String) },
        requiredScopes: ['oauth', 'crm.objects.contacts.read'],
        optionalScopes: ['tickets'],
      });
      expect((svc.validate(ok).app as unknown as Record<string, unknown>).clientSecretHash).toBeUndefined();
      expect(codeOf(() => svc.validate({ ...ok, clientId: undefined }))).toBe('MISSING_CLIENT_ID');
      expect(codeOf(() => svc.validate({ ...ok, clientId: 'nope' }))).toBe('UNKNOWN_CLIENT_ID');
      for (const uri of [
        `${f.redirectUri}/`,
        f.redirectUri.replace('app.', 'APP.'),
        f.redirectUri.replace('.com/', '.com:443/'),
        f.redirectUri.replace('https://', 'https://x@'),
        f.redirectUri.replace('callback', '%63allback'),
      ]) {
        expect(codeOf(() => svc.validate({ ...ok, redirectUri: uri }))).toBe('REDIRECT_URI_MISMATCH');
      }
      // The redirect URI is checked before the scopes: a bad URI with bad scopes reports the URI.
      expect(codeOf(() => svc.validate({ ...ok, redirectUri: 'https://evil.example/', scope: 'nope' }))).toBe(
        'REDIRECT_URI_MISMATCH',
      );
      expect(codeOf(() => svc.validate({ ...ok, scope: 'oauth' }))).toBe('MISSING_REQUIRED_SCOPE');
      expect(codeOf(() => svc.validate({ ...ok, scope: `${ok.scope} nope` }))).toBe('UNKNOWN_SCOPE');
    });
  });

  describe('bearer guard on CRM endpoints', () => {
    it('hands the handler hub, user, app and scopes; 401/403 otherwise', async () => {
      const tokens = await installAndExchange(t, f);
      const ok = await get('/test/oauth-guard-probe', { authorization: `Bearer ${tokens.access_token}` });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ hubId: f.hubId, userId: f.userId, appId: f.appId, scopes: tokens.scopes });

      const missing = await get('/test/oauth-guard-probe');
      expect(missing.statusCode).toBe(401);
      expect(missing.json().category).toBe('INVALID_AUTHENTICATION');
      const malformed = await get('/test/oauth-guard-probe', { authorization: 'Bearer garbage' });
      expect(malformed.statusCode).toBe(401);
      expect(malformed.json().category).toBe('INVALID_AUTHENTICATION');

      const narrow = await oauthFixture(t, { requiredScopes: ['oauth'], optionalScopes: [] });
      const narrowTokens = await installAndExchange(t, narrow);
      const forbidden = await get('/test/oauth-guard-probe', { authorization: `Bearer ${narrowTokens.access_token}` });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({
        category: 'MISSING_SCOPES',
        context: { requiredScopes: ['crm.objects.contacts.read', 'crm.objects.deals.read'] },
      });

      t.clock.advance(1_800_000 + 3 * 60_000 + 10_000);
      const expired = await get('/test/oauth-guard-probe', { authorization: `Bearer ${tokens.access_token}` });
      expect(expired.statusCode).toBe(401);
      expect(expired.json()).toMatchObject({
        category: 'EXPIRED_AUTHENTICATION',
        message: 'The OAuth token used to make this call expired 3 minute(s) ago.',
      });
    });
  });
});
