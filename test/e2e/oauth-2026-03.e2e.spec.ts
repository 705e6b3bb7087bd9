import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/platform/clock';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { SigningKeyring, readAccessToken } from '../../src/oauth/domain/access-token';
import { AccessTokenRevocations } from '../../src/oauth/application/access-token-verifier';
import type { LightMyRequestResponse } from 'fastify';
import * as openid from 'openid-client';
import OAuth2Strategy from 'passport-oauth2';
import { allEvents, expectOAuthError, installCode, type OAuthFixture, oauthFixture } from '../support/oauth-fixtures';
import { expectOAuthSchema, specHasSchema } from '../support/oauth-schema';
import { createAccount, createApp, createUser, startTestApp, type TestApp } from '../support/test-app';

/**
 * OAuth on HubSpot's current platform: /oauth/2026-03 (and the same operations at /oauth/v3 and
 * /oauth/2026-09): token (three grants), RFC 7662 introspection, RFC 7009 revocation, the RFC 8414
 * discovery document, and the admin's expire-access-tokens; each success body checked against its
 * version's spec, each error against HubSpot's Error schema.
 */
const VERSIONS = ['v3', '2026-03', '2026-09'] as const;
type Version = (typeof VERSIONS)[number];
const PUBLIC_URL = 'http://oauth.test';
const CRM = '/crm/v3/limits/calculated-properties';
const SCOPES = { requiredScopes: ['oauth', 'crm.objects.deals.read'], optionalScopes: [] };

/** RFC 6749 §2.3.1: each part form-urlencoded, then joined and base64-encoded. */
const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

describe('OAuth 2026-03: token, introspect, revoke, discovery, expire-access-tokens', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Wrong client credentials are tried on purpose, many times: the throttle's bound (always on) is raised.
    t = await startTestApp({ listen: true, env: { PUBLIC_URL, CLIENT_AUTH_FAILURE_MAX: '1000' } });
  }, 30_000);
  afterAll(async () => {
    await t.close();
  });

  const form = (
    path: string,
    fields: Record<string, string | string[] | undefined>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    }
    return t.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: body.toString(),
    });
  };
  const creds = (f: OAuthFixture) => ({ client_id: f.clientId, client_secret: f.clientSecret });
  const crm = (token: string) => t.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${token}` } });
  const introspect = (f: OAuthFixture, token: string, v: Version = '2026-03', extra: Record<string, string> = {}) =>
    form(`/oauth/${v}/token/introspect`, { ...creds(f), token, ...extra });
  const revoke = (f: OAuthFixture, token: string, v: Version = '2026-03', extra: Record<string, string> = {}) =>
    form(`/oauth/${v}/token/revoke`, { ...creds(f), token, ...extra });

  /** Installs with a PKCE challenge and redeems the code at `/oauth/{v}/token`. */
  async function tokensAt(f: OAuthFixture, v: Version = '2026-03') {
    const verifier = randomBytes(32).toString('base64url');
    const { code } = await installCode(t, f, { codeChallenge: s256(verifier), codeChallengeMethod: 'S256' });
    const r = await form(`/oauth/${v}/token`, {
      grant_type: 'authorization_code',
      ...creds(f),
      redirect_uri: f.redirectUri,
      code,
      code_verifier: verifier,
    });
    expect(r.statusCode).toBe(200);
    return r.json() as { access_token: string; refresh_token: string; expires_in: number };
  }

  function expectTokenResponse(
    v: Version,
    body: unknown,
    name: 'AccessTokenResponse' | 'ClientCredentialsTokenResponse',
  ) {
    // 2026-09's spec dropped the token endpoint's 200 schemas: its answers are checked against 2026-03's.
    expectOAuthSchema(name, body, { strict: true, version: specHasSchema(v, name) ? v : '2026-03' });
    expectOAuthSchema('TokenResponseIF', body, { version: specHasSchema(v, 'TokenResponseIF') ? v : '2026-03' });
  }

  describe.each(VERSIONS)('at /oauth/%s', (v) => {
    it('HTTP Basic client authentication at token, introspect and revoke (RFC 6749 §2.3.1)', async () => {
      const f = await oauthFixture(t, SCOPES);
      const basic = { authorization: basicAuth(f.clientId, f.clientSecret) };
      const verifier = randomBytes(32).toString('base64url');
      const { code } = await installCode(t, f, { codeChallenge: s256(verifier), codeChallengeMethod: 'S256' });
      const issued = await form(
        `/oauth/${v}/token`,
        { grant_type: 'authorization_code', redirect_uri: f.redirectUri, code, code_verifier: verifier },
        basic,
      );
      expect(issued.statusCode).toBe(200);
      expectTokenResponse(v, issued.json(), 'AccessTokenResponse');
      const tokens = issued.json() as { access_token: string; refresh_token: string };
      // The same client_id in the body beside Basic is allowed (it names the same client).
      const refreshed = await form(
        `/oauth/${v}/token`,
        { grant_type: 'refresh_token', client_id: f.clientId, refresh_token: tokens.refresh_token },
        basic,
      );
      expect(refreshed.statusCode).toBe(200);
      expectTokenResponse(v, refreshed.json(), 'AccessTokenResponse');
      const info = await form(`/oauth/${v}/token/introspect`, { token: tokens.access_token }, basic);
      expect(info.statusCode).toBe(200);
      expect(info.json()).toMatchObject({ active: true, client_id: f.clientId, hub_id: f.hubId });
      const revoked = await form(`/oauth/${v}/token/revoke`, { token: tokens.access_token }, basic);
      expect(revoked.statusCode).toBe(200);
      expect((await form(`/oauth/${v}/token/introspect`, { token: tokens.access_token }, basic)).json()).toEqual({
        active: false,
      });
      expect((await crm(tokens.access_token)).statusCode).toBe(401);
    });

    it('authorization_code with PKCE and refresh_token answer AccessTokenResponse; the tokens work on CRM endpoints', async () => {
      const f = await oauthFixture(t, SCOPES);
      const verifier = randomBytes(32).toString('base64url');
      const { code } = await installCode(t, f, { codeChallenge: s256(verifier), codeChallengeMethod: 'S256' });
      const base = { grant_type: 'authorization_code', ...creds(f), redirect_uri: f.redirectUri, code };
      expectOAuthError(
        await form(`/oauth/${v}/token`, { ...base, code_verifier: 'x'.repeat(43) }),
        400,
        'BAD_CODE_VERIFIER',
      );

      const { code: code2 } = await installCode(t, f, { codeChallenge: s256(verifier), codeChallengeMethod: 'S256' });
      const r = await form(`/oauth/${v}/token`, { ...base, code: code2, code_verifier: verifier });
      expect(r.statusCode).toBe(200);
      expect(r.headers['cache-control']).toBe('no-store');
      const body = r.json();
      expectTokenResponse(v, body, 'AccessTokenResponse');
      expect(body).toMatchObject({
        token_type: 'bearer',
        token_use: 'access_token',
        expires_in: 1800,
        hub_id: f.hubId,
      });
      expect((await crm(body.access_token)).statusCode).toBe(200);

      const refreshed = await form(`/oauth/${v}/token`, {
        grant_type: 'refresh_token',
        ...creds(f),
        refresh_token: body.refresh_token,
      });
      expect(refreshed.statusCode).toBe(200);
      expectTokenResponse(v, refreshed.json(), 'AccessTokenResponse');
      expect(refreshed.json().refresh_token).toBe(body.refresh_token);
      expect((await crm(refreshed.json().access_token)).statusCode).toBe(200);
    });

    it(`client_credentials: ${v === '2026-09' ? 'refused, as 2026-09 no longer lists it' : 'an app token, refused by CRM endpoints, introspected and revoked'}`, async () => {
      const f = await oauthFixture(t, SCOPES);
      const r = await form(`/oauth/${v}/token`, { grant_type: 'client_credentials', ...creds(f) });
      if (v === '2026-09') {
        expectOAuthError(r, 400, 'BAD_GRANT_TYPE', 'unsupported_grant_type');
        return;
      }
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expectTokenResponse(v, body, 'ClientCredentialsTokenResponse');
      expect(body).toMatchObject({ token_type: 'bearer', token_use: 'client_credentials', expires_in: 1800 });
      expect(body.refresh_token).toBeUndefined();

      const refused = await crm(body.access_token);
      expect(refused.statusCode).toBe(401);
      expectOAuthSchema('Error', refused.json());
      expect(refused.json().category).toBe('INVALID_AUTHENTICATION');
      // v1 metadata describes install tokens only.
      expect((await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${body.access_token}` })).statusCode).toBe(
        401,
      );

      const info = await introspect(f, body.access_token, v);
      expect(info.statusCode).toBe(200);
      expectOAuthSchema('PublicAccessTokenInfoResponse', info.json(), { strict: true, version: v });
      expect(info.json()).toMatchObject({
        active: true,
        app_id: f.appId,
        client_id: f.clientId,
        token_use: 'access_token',
      });

      expect((await revoke(f, body.access_token, v)).statusCode).toBe(200);
      expect((await introspect(f, body.access_token, v)).json()).toEqual({ active: false });
    });
  });

  it('introspection: the client’s live tokens are described per spec; every other token is {"active": false}', async () => {
    const f = await oauthFixture(t, SCOPES);
    const other = await oauthFixture(t, SCOPES);
    const mine = await tokensAt(f);
    const theirs = await tokensAt(other);

    for (const v of VERSIONS) {
      const access = await introspect(f, mine.access_token, v);
      expect(access.statusCode).toBe(200);
      expect(access.headers['cache-control']).toBe('no-store');
      expectOAuthSchema('TokenInfoResponseBaseIF', access.json(), { version: v });
      if (v !== '2026-09')
        expectOAuthSchema('PublicAccessTokenInfoResponse', access.json(), { strict: true, version: v });
      expect(access.json()).toMatchObject({
        active: true,
        token: mine.access_token,
        hub_id: f.hubId,
        app_id: f.appId,
        client_id: f.clientId,
        user_id: f.userId,
        user: f.email,
        hub_domain: f.domain,
        token_use: 'access_token',
        expires_in: 1800,
        scopes: expect.arrayContaining(['crm.objects.deals.read']),
      });

      const refresh = await introspect(f, mine.refresh_token, v, { token_type_hint: 'refresh_token' });
      expect(refresh.statusCode).toBe(200);
      expectOAuthSchema('TokenInfoResponseBaseIF', refresh.json(), { version: v });
      if (v !== '2026-09')
        expectOAuthSchema('PublicRefreshTokenInfoResponse', refresh.json(), { strict: true, version: v });
      expect(refresh.json()).toMatchObject({
        active: true,
        token: mine.refresh_token,
        hub_id: f.hubId,
        client_id: f.clientId,
        token_use: 'refresh_token',
      });
      // A wrong hint does not hide the token (RFC 7662 §2.1).
      expect((await introspect(f, mine.refresh_token, v, { token_type_hint: 'access_token' })).json().active).toBe(
        true,
      );
    }

    const inactive = async (token: string, who: OAuthFixture = f) => {
      const r = await introspect(who, token);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ active: false });
    };
    await inactive(theirs.access_token); // another client's
    await inactive(theirs.refresh_token);
    await inactive('na1-unknown-refresh-token');
    await inactive('k1.AAAA.BBBB'); // unknown key
    await inactive(mine.access_token.slice(0, -2) + (mine.access_token.endsWith('AA') ? 'BB' : 'AA')); // tampered
    await inactive('x'.repeat(5000));

    t.clock.advance(1_800_000);
    await inactive(mine.access_token); // expired
    expect((await introspect(f, mine.refresh_token)).json().active).toBe(true);
    t.clock.advance(-1_800_000);
  });

  it('a revoked access token and an uninstalled install’s access token get 401 on a CRM endpoint', async () => {
    const f = await oauthFixture(t, SCOPES);
    const g = await oauthFixture(t, SCOPES);
    const revoked = await tokensAt(f);
    const sibling = await tokensAt(f); // same install, not revoked
    const uninstalled = await tokensAt(g);
    for (const token of [revoked.access_token, sibling.access_token, uninstalled.access_token]) {
      expect((await crm(token)).statusCode).toBe(200);
    }

    const r = await revoke(f, revoked.access_token, '2026-03', { token_type_hint: 'access_token' });
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe('');
    // An empty body is not JSON: no JSON label for strict parsers to fail on (issue 40, item 5).
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.headers['cache-control']).toBe('no-store');
    const uninstall = await t.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`);
    expect(uninstall.statusCode).toBe(204);

    for (const token of [revoked.access_token, uninstalled.access_token]) {
      const refused = await crm(token);
      expect(refused.statusCode).toBe(401);
      expectOAuthSchema('Error', refused.json());
      expect(refused.json().category).toBe('INVALID_AUTHENTICATION');
    }
    expect((await introspect(f, revoked.access_token)).json()).toEqual({ active: false });
    expect((await introspect(g, uninstalled.access_token)).json()).toEqual({ active: false });
    expect((await introspect(g, uninstalled.refresh_token)).json()).toEqual({ active: false });
    // The other token of the same install and the refresh token are untouched.
    expect((await crm(sibling.access_token)).statusCode).toBe(200);
    expect((await introspect(f, revoked.refresh_token)).json().active).toBe(true);
    // The v1 metadata endpoint no longer describes them either.
    expect((await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${revoked.access_token}` })).statusCode).toBe(
      401,
    );

    const events = await allEvents(t);
    const revokedEvents = events.filter((e) => e.type === 'oauth.AccessTokenRevoked');
    expect(revokedEvents.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(events)).not.toContain(revoked.access_token);

    // Revoking again, or revoking an unknown token, is 200 and changes nothing.
    const before = events.length;
    expect((await revoke(f, revoked.access_token)).statusCode).toBe(200);
    expect((await revoke(f, 'na1-never-issued')).statusCode).toBe(200);
    expect((await allEvents(t)).length).toBe(before);
  });

  it('revoking a refresh token stops the refresh grant; another client’s tokens are left alone', async () => {
    const f = await oauthFixture(t, SCOPES);
    const other = await oauthFixture(t, SCOPES);
    const mine = await tokensAt(f);
    const theirs = await tokensAt(other);

    const before = (await allEvents(t)).length;
    expect((await revoke(f, theirs.refresh_token)).statusCode).toBe(200);
    expect((await revoke(f, theirs.access_token)).statusCode).toBe(200);
    expect((await allEvents(t)).length).toBe(before);
    expect((await crm(theirs.access_token)).statusCode).toBe(200);
    expect((await introspect(other, theirs.refresh_token)).json().active).toBe(true);

    expect((await revoke(f, mine.refresh_token, 'v3')).statusCode).toBe(200);
    expect((await introspect(f, mine.refresh_token)).json()).toEqual({ active: false });
    expectOAuthError(
      await form('/oauth/2026-03/token', {
        grant_type: 'refresh_token',
        ...creds(f),
        refresh_token: mine.refresh_token,
      }),
      400,
      'BAD_REFRESH_TOKEN',
      'invalid_grant',
    );
    // HubSpot's behaviour: access tokens already issued from it stay valid.
    expect((await crm(mine.access_token)).statusCode).toBe(200);
  });

  it('expire-access-tokens: the next token starts a second later, from the install stream even before the projection ran', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await tokensAt(f);
    const now = t.clock.now();
    expect(
      (await t.admin('POST', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/expire-access-tokens`)).statusCode,
    ).toBe(200);
    // As on an instance whose revocations projection has not applied the expiry yet.
    t.app.get(AccessTokenRevocations).clear();
    try {
      for (const path of ['/oauth/v1/token', '/oauth/2026-03/token']) {
        const fresh = await form(path, {
          grant_type: 'refresh_token',
          ...creds(f),
          refresh_token: tokens.refresh_token,
        });
        expect(fresh.statusCode).toBe(200);
        const claims = readAccessToken(fresh.json().access_token, t.app.get(SigningKeyring));
        if (typeof claims === 'string') throw new Error(claims);
        // Same clock second as the expiry: the floor, not the clock, sets the issue time.
        expect(claims.issuedAt).toBe(Math.floor(now / 1000) * 1000 + 1000);
      }
    } finally {
      await t.app.get(ProjectionRunner).rebuild('oauth-access-token-revocations');
    }
  });

  it('expire-access-tokens: the install’s tokens get 401 EXPIRED_AUTHENTICATION at once; a new token works', async () => {
    const f = await oauthFixture(t, SCOPES);
    const tokens = await tokensAt(f);
    const url = `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/expire-access-tokens`;
    const now = t.clock.now();

    const r = await t.admin('POST', url);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ appId: f.appId, hubId: f.hubId, expiredAt: now });

    const refused = await crm(tokens.access_token);
    expect(refused.statusCode).toBe(401);
    expectOAuthSchema('Error', refused.json());
    expect(refused.json()).toMatchObject({
      category: 'EXPIRED_AUTHENTICATION',
      message: 'The OAuth token used to make this call expired 1 minute(s) ago.',
      context: { expiredAt: [new Date(now).toISOString()] },
    });
    expect((await introspect(f, tokens.access_token)).json()).toEqual({ active: false });

    // Refresh tokens keep working, and a token issued in the same second as the expiry is not expired.
    const fresh = await form('/oauth/2026-03/token', {
      grant_type: 'refresh_token',
      ...creds(f),
      refresh_token: tokens.refresh_token,
    });
    expect(fresh.statusCode).toBe(200);
    expect((await crm(fresh.json().access_token)).statusCode).toBe(200);
    expect((await introspect(f, fresh.json().access_token)).json().active).toBe(true);

    // A naturally expired token answers the same way, with its own expiry in the context.
    const issued = await tokensAt(f);
    t.clock.advance(1_800_000 + 2 * 60_000 + 5_000);
    const natural = await crm(issued.access_token);
    expect(natural.json()).toMatchObject({
      category: 'EXPIRED_AUTHENTICATION',
      message: 'The OAuth token used to make this call expired 2 minute(s) ago.',
      context: { expiredAt: [expect.stringMatching(/Z$/)] },
    });
    t.clock.advance(-(1_800_000 + 2 * 60_000 + 5_000));

    const events = await allEvents(t);
    expect(
      events.filter(
        (e) => e.type === 'oauth.InstallAccessTokensExpired' && e.streamId.includes(`${f.appId}-${f.hubId}`),
      ),
    ).toHaveLength(1);

    // Not installed, unknown ids, bad ids, no admin key.
    const g = await oauthFixture(t, SCOPES);
    expect(
      (await t.admin('POST', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}/expire-access-tokens`)).statusCode,
    ).toBe(404);
    expect((await t.admin('POST', `/admin/v1/accounts/abc/installs/${g.appId}/expire-access-tokens`)).statusCode).toBe(
      400,
    );
    expect((await t.inject({ method: 'POST', url })).statusCode).toBe(401);
  });

  it('bad input on every new endpoint: HubSpot Error bodies, no 5xx, nothing stored', async () => {
    const f = await oauthFixture(t, SCOPES);
    const other = await oauthFixture(t, SCOPES);
    const tokens = await tokensAt(f);
    const before = (await allEvents(t)).length;
    const paths = ['token', 'token/introspect', 'token/revoke'];

    for (const v of VERSIONS) {
      for (const p of paths) {
        const url = `/oauth/${v}/${p}`;
        const okFields =
          p === 'token'
            ? { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }
            : { token: tokens.access_token };
        // JSON instead of a form; multipart; text.
        for (const type of ['application/json', 'multipart/form-data; boundary=x', 'text/plain']) {
          const r = await t.inject({
            method: 'POST',
            url,
            headers: { 'content-type': type },
            payload: JSON.stringify({ ...creds(f), ...okFields }),
          });
          expectOAuthError(r, 400, 'BAD_REQUEST', 'invalid_request');
        }
        // No body at all.
        const empty = await t.inject({ method: 'POST', url });
        expect(empty.statusCode).toBe(400);
        expectOAuthSchema('Error', empty.json());
        // Duplicate parameters.
        for (const dup of ['client_id', 'client_secret', ...Object.keys(okFields)]) {
          const fields: Record<string, string | string[]> = { ...creds(f) };
          for (const [k, val] of Object.entries(okFields)) if (val !== undefined) fields[k] = val;
          fields[dup] = [String(fields[dup]), String(fields[dup])];
          expectOAuthError(await form(url, fields), 400, 'BAD_REQUEST', 'invalid_request');
        }
        // Wrong client credentials: 401 invalid_client.
        expectOAuthError(
          await form(url, { ...okFields, client_id: f.clientId, client_secret: 'wrong' }),
          401,
          'BAD_CLIENT_SECRET',
          'invalid_client',
        );
        expectOAuthError(
          await form(url, { ...okFields, client_id: 'no-such-client', client_secret: 'x' }),
          401,
          'BAD_CLIENT_ID',
          'invalid_client',
        );
        expectOAuthError(await form(url, { ...okFields }), 401, 'BAD_CLIENT_ID', 'invalid_client');
        // HTTP Basic: one method per request (RFC 6749 §2.3), wrong or malformed credentials 401.
        const basic = basicAuth(f.clientId, f.clientSecret);
        expectOAuthError(
          await form(url, { ...okFields, client_secret: f.clientSecret }, { authorization: basic }),
          400,
          'BAD_REQUEST',
          'invalid_request',
        );
        expectOAuthError(
          await form(url, { ...okFields, client_id: other.clientId }, { authorization: basic }),
          400,
          'BAD_CLIENT_ID',
          'invalid_request',
        );
        for (const authorization of [basicAuth(f.clientId, 'wrong'), 'Basic %%%', 'Basic bm9jb2xvbg==']) {
          const r = await form(url, okFields, { authorization });
          expectOAuthError(
            r,
            401,
            authorization === basicAuth(f.clientId, 'wrong') ? 'BAD_CLIENT_SECRET' : 'BAD_CLIENT_ID',
            'invalid_client',
          );
          expect(r.headers['www-authenticate']).toMatch(/^Basic /);
        }
        // Client assertions are refused clearly.
        expectOAuthError(
          await form(url, {
            ...creds(f),
            ...okFields,
            client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
            client_assertion: 'a.b.c',
          }),
          400,
          'BAD_REQUEST',
          'invalid_request',
        );
        if (p !== 'token') {
          expectOAuthError(await form(url, { ...creds(f) }), 400, 'BAD_REQUEST', 'invalid_request'); // missing token
          expectOAuthError(
            await form(url, { ...creds(f), token: 'x', token_type_hint: 'id_token' }),
            400,
            'BAD_REQUEST',
            'invalid_request',
          );
          // A NUL byte or a huge token is just a token nobody has.
          const odd = await form(url, { ...creds(other), token: `a\u0000b${'z'.repeat(3000)}` });
          expect(odd.statusCode).toBe(200);
        }
      }
      // Token endpoint: grant types and missing fields.
      const token = `/oauth/${v}/token`;
      expectOAuthError(await form(token, { ...creds(f) }), 400, 'BAD_GRANT_TYPE', 'invalid_request');
      expectOAuthError(
        await form(token, { ...creds(f), grant_type: 'password' }),
        400,
        'BAD_GRANT_TYPE',
        'unsupported_grant_type',
      );
      expectOAuthError(
        await form(token, { ...creds(f), grant_type: 'authorization_code', redirect_uri: f.redirectUri }),
        400,
        'BAD_AUTH_CODE',
        'invalid_request',
      );
      expectOAuthError(
        await form(token, { ...creds(f), grant_type: 'authorization_code', code: 'na1-x' }),
        400,
        'BAD_REDIRECT_URI',
        'invalid_request',
      );
      expectOAuthError(
        await form(token, { ...creds(f), grant_type: 'refresh_token' }),
        400,
        'BAD_REFRESH_TOKEN',
        'invalid_request',
      );
      // Tokens of other clients and of the other kind.
      expectOAuthError(
        await form(token, { ...creds(other), grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
        400,
        'BAD_REFRESH_TOKEN',
        'invalid_grant',
      );
      expectOAuthError(
        await form(token, { ...creds(f), grant_type: 'refresh_token', refresh_token: tokens.access_token }),
        400,
        'BAD_REFRESH_TOKEN',
        'invalid_grant',
      );
      expectOAuthError(
        await form(token, {
          ...creds(f),
          grant_type: 'authorization_code',
          code: tokens.refresh_token,
          redirect_uri: f.redirectUri,
        }),
        400,
        'BAD_AUTH_CODE',
      );
      if (v !== '2026-09') {
        expectOAuthError(
          await form(token, { ...creds(f), grant_type: 'client_credentials', scope: 'crm.objects.deals.read' }),
          400,
          'BAD_REQUEST',
          'invalid_scope',
        );
      }
      // Another client's tokens: introspection says inactive, revocation changes nothing.
      expect((await introspect(other, tokens.access_token, v)).json()).toEqual({ active: false });
      expect((await revoke(other, tokens.access_token, v)).statusCode).toBe(200);
      expect((await revoke(other, tokens.refresh_token, v)).statusCode).toBe(200);
    }
    // Bad admin input for expire-access-tokens.
    for (const url of [
      `/admin/v1/accounts/0/installs/${f.appId}/expire-access-tokens`,
      `/admin/v1/accounts/${f.hubId}/installs/99999999999999999999/expire-access-tokens`,
      `/admin/v1/accounts/${f.hubId}/installs/-1/expire-access-tokens`,
    ]) {
      const r = await t.admin('POST', url);
      expect(r.statusCode).toBeGreaterThanOrEqual(400);
      expect(r.statusCode).toBeLessThan(500);
      expectOAuthSchema('Error', r.json());
    }

    expect((await allEvents(t)).length).toBe(before);
    expect((await crm(tokens.access_token)).statusCode).toBe(200);
  });

  it('RFC 8414 discovery, RFC 7662 introspection and RFC 7009 revocation through openid-client', async () => {
    const doc = await t.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toMatchObject({
      issuer: PUBLIC_URL,
      token_endpoint: `${PUBLIC_URL}/oauth/2026-03/token`,
      introspection_endpoint: `${PUBLIC_URL}/oauth/2026-03/token/introspect`,
      revocation_endpoint: `${PUBLIC_URL}/oauth/2026-03/token/revoke`,
      authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`,
      code_challenge_methods_supported: ['S256'],
    });

    const f = await oauthFixture(t, SCOPES);
    const tokens = await tokensAt(f);
    // The service believes it lives at PUBLIC_URL; requests go to the test server instead.
    const toTestServer: openid.CustomFetch = (url, options) =>
      fetch(url.replace(PUBLIC_URL, t.url), options as RequestInit);
    const config = await openid.discovery(
      new URL(PUBLIC_URL),
      f.clientId,
      undefined,
      openid.ClientSecretPost(f.clientSecret),
      {
        algorithm: 'oauth2',
        [openid.customFetch]: toTestServer,
        execute: [openid.allowInsecureRequests],
      },
    );
    expect(config.serverMetadata().introspection_endpoint).toBe(`${PUBLIC_URL}/oauth/2026-03/token/introspect`);

    const active = await openid.tokenIntrospection(config, tokens.access_token);
    expect(active).toMatchObject({ active: true, client_id: f.clientId, hub_id: f.hubId });
    expect(
      (await openid.tokenIntrospection(config, tokens.refresh_token, { token_type_hint: 'refresh_token' })).active,
    ).toBe(true);

    await openid.tokenRevocation(config, tokens.access_token, { token_type_hint: 'access_token' });
    expect((await openid.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    expect((await crm(tokens.access_token)).statusCode).toBe(401);
    await openid.tokenRevocation(config, tokens.refresh_token);
    expect((await openid.tokenIntrospection(config, tokens.refresh_token)).active).toBe(false);
    // Unknown tokens revoke fine (RFC 7009 §2.2).
    await openid.tokenRevocation(config, 'na1-nothing');

    // A manually built configuration (no discovery) and a wrong secret: RFC 6749 invalid_client.
    const wrong = new openid.Configuration(
      { issuer: PUBLIC_URL, introspection_endpoint: `${t.url}/oauth/2026-03/token/introspect` },
      f.clientId,
      undefined,
      openid.ClientSecretPost('wrong-secret'),
    );
    openid.allowInsecureRequests(wrong);
    await expect(openid.tokenIntrospection(wrong, tokens.access_token)).rejects.toMatchObject({
      error: 'invalid_client',
      status: 401,
    });
  });

  it('passport-oauth2 runs the authorization code flow (PKCE) with tokenURL /oauth/2026-03/token', async () => {
    const callbackURL = 'http://127.0.0.1:4999/oauth/callback';
    const dev = await createAccount(t);
    const account = await createAccount(t);
    const user = await createUser(t, { hubIds: [account.hubId] });
    const app = await createApp(t, {
      developerHubId: dev.hubId,
      redirectUrls: [callbackURL],
      requiredScopes: SCOPES.requiredScopes,
    });
    const verifiers = new Map<string, string>();
    const store = {
      store: (_req: unknown, verifier: string, _state: unknown, _meta: unknown, done: (e: null, h: string) => void) => {
        const handle = randomBytes(12).toString('base64url');
        verifiers.set(handle, verifier);
        done(null, handle);
      },
      verify: (_req: unknown, handle: string, done: (e: null, ok: string | false, info?: unknown) => void) => {
        const verifier = verifiers.get(handle);
        verifiers.delete(handle);
        done(null, verifier ?? false, handle);
      },
    };
    const strategy = new OAuth2Strategy(
      {
        authorizationURL: `${t.url}/oauth/authorize`,
        tokenURL: `${t.url}/oauth/2026-03/token`,
        clientID: app.clientId,
        clientSecret: app.clientSecret,
        callbackURL,
        pkce: true,
        state: true,
        store,
        scope: SCOPES.requiredScopes,
        scopeSeparator: ' ',
      } as never,
      ((
        accessToken: string,
        refreshToken: string,
        params: Record<string, unknown>,
        _profile: unknown,
        done: (e: null, u: unknown) => void,
      ) => done(null, { accessToken, refreshToken, params })) as never,
    );
    const run = (query: Record<string, string>) =>
      new Promise<{
        redirect?: string;
        user?: { accessToken: string; refreshToken: string; params: Record<string, unknown> };
        other?: unknown;
      }>((resolve) => {
        const s = Object.create(strategy) as OAuth2Strategy & Record<string, unknown>;
        s.redirect = (url: string) => resolve({ redirect: url });
        s.success = (u: never) => resolve({ user: u });
        s.fail = (other: unknown) => resolve({ other });
        s.error = (other: Error) => resolve({ other });
        s.authenticate({ query } as never, {});
      });

    const start = await run({});
    const authorize = new URL(start.redirect!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const { code } = await installCode(
      t,
      { ...(await oauthFixtureFor(app, account.hubId, user.userId)), redirectUri: callbackURL },
      { codeChallenge: authorize.searchParams.get('code_challenge'), codeChallengeMethod: 'S256' },
    );
    const done = await run({ code, state: authorize.searchParams.get('state')! });
    expect(done.other).toBeUndefined();
    expect(done.user!.params).toMatchObject({ token_use: 'access_token', expires_in: 1800, hub_id: account.hubId });
    // node-oauth hands the refresh token apart from the other parameters.
    expectOAuthSchema(
      'AccessTokenResponse',
      { ...done.user!.params, refresh_token: done.user!.refreshToken },
      { strict: true, version: '2026-03' },
    );
    expect((await crm(done.user!.accessToken)).statusCode).toBe(200);
  });

  /** The fixture shape installCode needs, for an app made outside oauthFixture. */
  async function oauthFixtureFor(
    app: Awaited<ReturnType<typeof createApp>>,
    hubId: number,
    userId: number,
  ): Promise<OAuthFixture> {
    return {
      hubId,
      domain: '',
      userId,
      email: '',
      appId: app.appId,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: app.redirectUrls[0]!,
      requiredScopes: app.requiredScopes,
      optionalScopes: app.optionalScopes,
    };
  }
});

describe('revocations after a restart', () => {
  it('a revoked token, an uninstalled install and expired tokens stay refused (reloaded from the read model)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hs-revocations-'));
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));
    let t = await startTestApp({ dataDir, clock });
    try {
      const post = (url: string, fields: Record<string, string>) =>
        t.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(fields).toString(),
        });
      const issue = async (f: OAuthFixture) => {
        const { code } = await installCode(t, f);
        const r = await post('/oauth/2026-03/token', {
          grant_type: 'authorization_code',
          client_id: f.clientId,
          client_secret: f.clientSecret,
          redirect_uri: f.redirectUri,
          code,
        });
        return r.json().access_token as string;
      };
      const [a, b, c, d] = [
        await oauthFixture(t, SCOPES),
        await oauthFixture(t, SCOPES),
        await oauthFixture(t, SCOPES),
        await oauthFixture(t, SCOPES),
      ];
      const revoked = await issue(a);
      const uninstalled = await issue(b);
      const expired = await issue(c);
      const live = await issue(d);
      expect(
        (
          await post('/oauth/2026-03/token/revoke', {
            client_id: a.clientId,
            client_secret: a.clientSecret,
            token: revoked,
          })
        ).statusCode,
      ).toBe(200);
      expect((await t.admin('DELETE', `/admin/v1/accounts/${b.hubId}/installs/${b.appId}`)).statusCode).toBe(204);
      expect(
        (await t.admin('POST', `/admin/v1/accounts/${c.hubId}/installs/${c.appId}/expire-access-tokens`)).statusCode,
      ).toBe(200);
      await t.close({ keepData: true });

      t = await startTestApp({ dataDir, clock });
      await t.app.get(ProjectionRunner).waitForHead();
      const crm = (token: string) =>
        t.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${token}` } });
      expect((await crm(revoked)).json().category).toBe('INVALID_AUTHENTICATION');
      expect((await crm(uninstalled)).json().category).toBe('INVALID_AUTHENTICATION');
      expect((await crm(expired)).json().category).toBe('EXPIRED_AUTHENTICATION');
      expect((await crm(live)).statusCode).toBe(200);
    } finally {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Two service starts (the second rebuilds read models from the store): far past jest's 5 s under load.
  }, 60_000);
});

describe('ACCESS_TOKEN_TTL_SECONDS', () => {
  it('sets expires_in and the tokens’ lifetime', async () => {
    const t = await startTestApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '60' } });
    try {
      const f = await oauthFixture(t, SCOPES);
      const { code } = await installCode(t, f);
      const r = await t.inject({
        method: 'POST',
        url: '/oauth/2026-03/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: f.clientId,
          client_secret: f.clientSecret,
          redirect_uri: f.redirectUri,
          code,
        }).toString(),
      });
      expect(r.json().expires_in).toBe(60);
      const call = () =>
        t.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${r.json().access_token}` } });
      expect((await call()).statusCode).toBe(200);
      t.clock.advance(60_000);
      expect((await call()).json().category).toBe('EXPIRED_AUTHENTICATION');
    } finally {
      await t.close();
    }
  }, 30_000);
});
