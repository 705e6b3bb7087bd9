import { createHash, randomBytes } from 'node:crypto';
import * as openid from 'openid-client';
import { AuthorizationCode, type AuthorizationTokenConfig } from 'simple-oauth2';
import { installCode, oauthFixture } from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The OAuth libraries apps reach for when they leave /oauth/v1, with their defaults: openid-client's
 * ClientSecretBasic and simple-oauth2 (HTTP Basic unless told otherwise). Each completes a code grant,
 * a refresh, an introspection and a revocation against /oauth/{version}/... over loopback.
 */
const VERSIONS = ['v3', '2026-03', '2026-09'] as const;
const PUBLIC_URL = 'http://basic.test';
const SCOPES = { requiredScopes: ['oauth', 'crm.objects.deals.read'], optionalScopes: [] };
const CRM = '/crm/v3/limits/calculated-properties';

/** 2026-09's spec keeps only the base introspection schema. */
function expectInfoSchema(v: (typeof VERSIONS)[number], body: unknown) {
  expectOAuthSchema('TokenInfoResponseBaseIF', body, { version: v });
  if (v !== '2026-09') expectOAuthSchema('PublicAccessTokenInfoResponse', body, { strict: true, version: v });
}

/**
 * The token endpoint's answer inside simple-oauth2's token object: the library adds `expires_at`
 * (a Date it computes from `expires_in`, access-token-parser.js), which the server never sends.
 */
function sentByServer(token: Record<string, unknown>, requestedAt: number): Record<string, unknown> {
  const { expires_at: computed, ...answer } = token;
  expect(computed).toBeInstanceOf(Date);
  const expiresIn = Number(answer.expires_in) * 1000;
  expect((computed as Date).getTime()).toBeGreaterThanOrEqual(requestedAt + expiresIn);
  expect((computed as Date).getTime()).toBeLessThanOrEqual(Date.now() + expiresIn);
  return answer;
}

describe('OAuth 2026-03 with HTTP Basic client authentication (openid-client, simple-oauth2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { PUBLIC_URL } });
  }, 30_000);
  afterAll(() => t.close());

  const crm = (token: string) => t.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${token}` } });

  it('the discovery document lists client_secret_basic and client_secret_post', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    for (const field of [
      'token_endpoint_auth_methods_supported',
      'introspection_endpoint_auth_methods_supported',
      'revocation_endpoint_auth_methods_supported',
    ]) {
      expect(doc[field]).toEqual(['client_secret_basic', 'client_secret_post']);
    }
  });

  it.each(VERSIONS)(
    'openid-client with ClientSecretBasic: code grant (PKCE), refresh, introspection, revocation at /oauth/%s',
    async (v) => {
      const f = await oauthFixture(t, SCOPES);
      // The service believes it lives at PUBLIC_URL; requests go to the test server instead.
      const seen: string[] = [];
      const toTestServer: openid.CustomFetch = (url, options) => {
        const auth = new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).get('authorization');
        seen.push(
          `${auth?.split(' ')[0]} ${String(options.body ?? '').includes('client_secret') ? 'secret-in-body' : ''}`,
        );
        return fetch(url.replace(PUBLIC_URL, t.url), options as RequestInit);
      };
      const config = new openid.Configuration(
        {
          issuer: PUBLIC_URL,
          token_endpoint: `${PUBLIC_URL}/oauth/${v}/token`,
          introspection_endpoint: `${PUBLIC_URL}/oauth/${v}/token/introspect`,
          revocation_endpoint: `${PUBLIC_URL}/oauth/${v}/token/revoke`,
        },
        f.clientId,
        undefined,
        openid.ClientSecretBasic(f.clientSecret),
      );
      config[openid.customFetch] = toTestServer;
      openid.allowInsecureRequests(config);

      const verifier = openid.randomPKCECodeVerifier();
      const { code } = await installCode(t, f, {
        codeChallenge: await openid.calculatePKCECodeChallenge(verifier),
        codeChallengeMethod: 'S256',
      });
      const callback = new URL(f.redirectUri);
      callback.searchParams.set('code', code);
      const tokens = await openid.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
      expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 1800, hub_id: f.hubId });
      expect((await crm(tokens.access_token)).statusCode).toBe(200);

      const refreshed = await openid.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.refresh_token).toBe(tokens.refresh_token);

      const info = await openid.tokenIntrospection(config, refreshed.access_token);
      expect(info).toMatchObject({ active: true, client_id: f.clientId, hub_id: f.hubId });
      expectInfoSchema(v, { ...info });

      await openid.tokenRevocation(config, refreshed.access_token);
      expect((await openid.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
      expect((await crm(refreshed.access_token)).statusCode).toBe(401);
      await openid.tokenRevocation(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
      await expect(openid.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      // Every request authenticated with Basic and none put the secret in the body.
      expect(seen.length).toBeGreaterThanOrEqual(7);
      for (const s of seen) expect(s).toBe('Basic ');

      // Bad input through the library: a wrong secret is RFC 6749's invalid_client.
      const wrong = new openid.Configuration(
        { issuer: PUBLIC_URL, introspection_endpoint: `${t.url}/oauth/${v}/token/introspect` },
        f.clientId,
        undefined,
        openid.ClientSecretBasic('wrong-secret'),
      );
      openid.allowInsecureRequests(wrong);
      // A 401 with WWW-Authenticate (RFC 6749 §5.2) surfaces as openid-client's challenge error.
      const refused = await openid.tokenIntrospection(wrong, tokens.access_token).then(
        () => undefined,
        (e: unknown) => e as { status: number; code: string; response: Response },
      );
      expect(refused).toMatchObject({ status: 401, code: 'OAUTH_WWW_AUTHENTICATE_CHALLENGE' });
      expect(refused!.response.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(await refused!.response.json()).toMatchObject({ error: 'invalid_client', status: 'BAD_CLIENT_SECRET' });
    },
  );

  it.each(VERSIONS)(
    'simple-oauth2 with its defaults: code grant, refresh, introspection, revocation at /oauth/%s',
    async (v) => {
      const f = await oauthFixture(t, SCOPES);
      const options = (secret: string) => ({
        client: { id: f.clientId, secret },
        auth: {
          tokenHost: t.url,
          tokenPath: `/oauth/${v}/token`,
          revokePath: `/oauth/${v}/token/revoke`,
          authorizePath: '/oauth/authorize',
        },
      });
      const client = new AuthorizationCode(options(f.clientSecret));
      // simple-oauth2 passes extra parameters through to the token request; its types leave PKCE out.
      const withVerifier = (config: AuthorizationTokenConfig, verifier: string) =>
        ({ ...config, code_verifier: verifier }) as AuthorizationTokenConfig;
      const authorizeUrl = new URL(client.authorizeURL({ redirect_uri: f.redirectUri, scope: SCOPES.requiredScopes }));
      expect(authorizeUrl.pathname).toBe('/oauth/authorize');

      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const { code } = await installCode(t, f, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
      const schemaVersion = v === '2026-09' ? '2026-03' : v;
      let requestedAt = Date.now();
      const token = await client.getToken(withVerifier({ code, redirect_uri: f.redirectUri }, verifier));
      expectOAuthSchema('AccessTokenResponse', sentByServer(token.token, requestedAt), { version: schemaVersion });
      const accessToken = token.token.access_token as string;
      expect((await crm(accessToken)).statusCode).toBe(200);

      requestedAt = Date.now();
      const refreshed = await token.refresh();
      expectOAuthSchema('AccessTokenResponse', sentByServer(refreshed.token, requestedAt), { version: schemaVersion });
      expect(refreshed.token.refresh_token).toBe(token.token.refresh_token);
      const newAccess = refreshed.token.access_token as string;

      // simple-oauth2 has no introspection call: the same Basic header it sends, by hand.
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(f.clientId)}:${encodeURIComponent(f.clientSecret)}`).toString('base64')}`;
      const introspect = (tok: string) =>
        t.inject({
          method: 'POST',
          url: `/oauth/${v}/token/introspect`,
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
          payload: new URLSearchParams({ token: tok }).toString(),
        });
      const active = await introspect(newAccess);
      expect(active.json()).toMatchObject({ active: true, client_id: f.clientId });
      expectInfoSchema(v, active.json());

      // The revocation's 200 has an empty body and no JSON label: simple-oauth2's default (`json:
      // 'strict'`) refuses any answer not labelled JSON, so the call takes `json: true`.
      await expect(refreshed.revoke('access_token')).rejects.toMatchObject({ output: { statusCode: 406 } });
      await refreshed.revoke('access_token', { json: true });
      expect((await introspect(newAccess)).json()).toEqual({ active: false });
      expect((await crm(newAccess)).statusCode).toBe(401);
      await refreshed.revoke('refresh_token', { json: true });
      await expect(refreshed.refresh()).rejects.toMatchObject({
        output: { statusCode: 400 },
        data: { payload: { error: 'invalid_grant' } },
      });

      // Bad input through the library: a wrong secret and a code used twice.
      const wrong = new AuthorizationCode(options('wrong-secret'));
      await expect(wrong.getToken({ code, redirect_uri: f.redirectUri })).rejects.toMatchObject({
        output: { statusCode: 401 },
        data: { payload: { error: 'invalid_client' } },
      });
      await expect(
        client.getToken(withVerifier({ code, redirect_uri: f.redirectUri }, verifier)),
      ).rejects.toMatchObject({ output: { statusCode: 400 }, data: { payload: { error: 'invalid_grant' } } });
    },
  );
});
