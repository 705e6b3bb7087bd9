import { Client } from '@hubspot/api-client';
import OAuth2Strategy from 'passport-oauth2';
import type { AccessTokenInfoResponse } from '@hubspot/api-client/lib/codegen/oauth';
import { OAuthModule } from '../../src/oauth/oauth.module';
import { AuthorizeRequestValidator } from '../../src/oauth/application/authorize-request.validator';
import { installCode, oauthFixture, OAuthFixture } from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { startTestApp, TestApp } from '../support/test-app';

/** JSON as it came over the wire, for the schema checks (the client renames fields). */
async function rawJson(url: string, init?: RequestInit): Promise<unknown> {
  const r = await fetch(url, init);
  return r.json();
}

describe('real OAuth clients against the running service (127.0.0.1)', () => {
  let t: TestApp;
  let f: OAuthFixture;
  beforeAll(async () => {
    t = await startTestApp({ modules: [OAuthModule], listen: true });
    f = await oauthFixture(t);
  });
  afterAll(() => t.close());

  describe('@hubspot/api-client v14 (only basePath changed)', () => {
    const client = () => new Client({ basePath: t.url });

    it('tokensApi.create for both grants, accessTokensApi.get, refreshTokensApi.get and archive', async () => {
      const hubspot = client();
      const { code } = await installCode(t, f);
      const tokens = await hubspot.oauth.tokensApi.create(
        'authorization_code',
        code,
        f.redirectUri,
        f.clientId,
        f.clientSecret,
      );
      // The client's TokenResponseIF model keeps these fields (hub_id etc. are checked on the raw body below).
      expect(tokens).toMatchObject({
        tokenType: 'bearer',
        expiresIn: 1800,
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
      });
      const accessToken = (tokens as { accessToken: string }).accessToken;
      const refreshToken = (tokens as { refreshToken: string }).refreshToken;
      expect(typeof accessToken).toBe('string');

      const refreshed = await hubspot.oauth.tokensApi.create(
        'refresh_token',
        undefined,
        undefined,
        f.clientId,
        f.clientSecret,
        refreshToken,
      );
      expect(refreshed).toMatchObject({ refreshToken, expiresIn: 1800, tokenType: 'bearer' });
      const newAccessToken = (refreshed as { accessToken: string }).accessToken;

      const info: AccessTokenInfoResponse = await hubspot.oauth.accessTokensApi.get(newAccessToken);
      expect(info).toMatchObject({
        token: newAccessToken,
        user: f.email,
        hubDomain: f.domain,
        hubId: f.hubId,
        appId: f.appId,
        userId: f.userId,
        tokenType: 'access',
        expiresIn: 1800,
      });
      // v14's model has no signed_access_token; the raw body (schema-checked below) carries it.
      expectOAuthSchema('AccessTokenInfoResponse', await rawJson(`${t.url}/oauth/v1/access-tokens/${newAccessToken}`), {
        strict: true,
      });

      const rinfo = await hubspot.oauth.refreshTokensApi.get(refreshToken);
      expect(rinfo).toMatchObject({
        token: refreshToken,
        clientId: f.clientId,
        hubId: f.hubId,
        userId: f.userId,
        user: f.email,
        hubDomain: f.domain,
        tokenType: 'refresh',
      });
      expectOAuthSchema('RefreshTokenInfoResponse', await rawJson(`${t.url}/oauth/v1/refresh-tokens/${refreshToken}`), {
        strict: true,
      });

      await hubspot.oauth.refreshTokensApi.archive(refreshToken);
      // The access token still answers; the refresh token no longer works.
      expect((await hubspot.oauth.accessTokensApi.get(newAccessToken)).token).toBe(newAccessToken);
      const failure = await hubspot.oauth.tokensApi
        .create('refresh_token', undefined, undefined, f.clientId, f.clientSecret, refreshToken)
        .then(
          () => null,
          (e: { code: number; body: Record<string, unknown> }) => e,
        );
      expect(failure).not.toBeNull();
      expect(failure!.code).toBe(400);
      expect(failure!.body).toMatchObject({ status: 'BAD_REFRESH_TOKEN', category: 'VALIDATION_ERROR' });
      const gone = await hubspot.oauth.refreshTokensApi.get(refreshToken).then(
        () => null,
        (e: { code: number }) => e,
      );
      expect(gone?.code).toBe(404);
    });

    it('the raw token endpoint body matches AccessTokenResponse', async () => {
      const { code } = await installCode(t, f);
      const body = await rawJson(`${t.url}/oauth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: f.redirectUri,
          client_id: f.clientId,
          client_secret: f.clientSecret,
        }),
      });
      expectOAuthSchema('AccessTokenResponse', body, { strict: true });
    });
  });

  describe('passport-oauth2 OAuth2Strategy (install through the programmatic endpoint)', () => {
    type Outcome =
      | { kind: 'redirect'; location: string }
      | { kind: 'success'; user: Record<string, unknown> }
      | { kind: 'fail' | 'error'; detail: unknown };

    /** Runs the strategy once on a fake request, the way passport's middleware does. */
    function run(strategy: OAuth2Strategy, req: Record<string, unknown>): Promise<Outcome> {
      return new Promise((resolve) => {
        const s = Object.create(strategy) as OAuth2Strategy & Record<string, unknown>;
        s.redirect = (location: string) => resolve({ kind: 'redirect', location });
        s.success = (user: Record<string, unknown>) => resolve({ kind: 'success', user });
        s.fail = (detail: unknown) => resolve({ kind: 'fail', detail });
        s.error = (detail: unknown) => resolve({ kind: 'error', detail });
        s.authenticate(req as never, {});
      });
    }

    it('authorize URL → approval → code exchange (PKCE + state) → refresh', async () => {
      const session: Record<string, unknown> = {};
      const strategy = new OAuth2Strategy(
        {
          authorizationURL: `${t.url}/oauth/authorize`,
          tokenURL: `${t.url}/oauth/v1/token`,
          clientID: f.clientId,
          clientSecret: f.clientSecret,
          callbackURL: f.redirectUri,
          scope: f.requiredScopes,
          state: true,
          pkce: true,
        },
        ((
          accessToken: string,
          refreshToken: string,
          params: Record<string, unknown>,
          _profile: unknown,
          done: (e: unknown, u: unknown) => void,
        ) => done(null, { accessToken, refreshToken, params })) as OAuth2Strategy.VerifyFunction,
      );

      // 1. The strategy sends the user to the install page.
      const start = await run(strategy, { query: {}, session, headers: {} });
      if (start.kind !== 'redirect') throw new Error(`expected a redirect, got ${JSON.stringify(start)}`);
      const authorize = new URL(start.location);
      expect(authorize.pathname).toBe('/oauth/authorize');
      const q = Object.fromEntries(authorize.searchParams);
      expect(q).toMatchObject({
        client_id: f.clientId,
        redirect_uri: f.redirectUri,
        response_type: 'code',
        code_challenge_method: 'S256',
      });
      // That URL passes the page's own checks.
      expect(
        t.app
          .get(AuthorizeRequestValidator)
          .validate({ clientId: q.client_id, redirectUri: q.redirect_uri, scope: q.scope }),
      ).toMatchObject({ app: { appId: f.appId } });

      // 2. The user approves (programmatic twin of the page's button).
      const approval = await t.admin('POST', `/admin/v1/apps/${f.appId}/installs`, {
        hubId: f.hubId,
        userId: f.userId,
        redirectUri: q.redirect_uri,
        scopes: q.scope!.split(' '),
        codeChallenge: q.code_challenge,
        codeChallengeMethod: q.code_challenge_method,
        state: q.state,
      });
      expect(approval.statusCode).toBe(201);
      const callback = new URL(approval.json().redirectUrl);

      // 3. The callback: the strategy checks state, sends code + code_verifier, gets the tokens.
      const done = await run(strategy, { query: Object.fromEntries(callback.searchParams), session, headers: {} });
      if (done.kind !== 'success') throw new Error(`expected success, got ${JSON.stringify(done)}`);
      const user = done.user as { accessToken: string; refreshToken: string; params: Record<string, unknown> };
      // node-oauth moves access_token / refresh_token out of params into their own arguments.
      expect(user.params).toMatchObject({
        token_type: 'bearer',
        expires_in: 1800,
        token_use: 'access_token',
        hub_id: f.hubId,
        user_id: f.userId,
      });
      expectOAuthSchema(
        'AccessTokenResponse',
        { ...user.params, access_token: user.accessToken, refresh_token: user.refreshToken },
        { strict: true },
      );
      expect(user.accessToken.length).toBeGreaterThan(0);
      expect(user.refreshToken.length).toBeGreaterThan(0);

      // 4. Refresh the way passport-oauth2-refresh does: the strategy's own OAuth2 client.
      const oauth2 = (
        strategy as unknown as {
          _oauth2: {
            getOAuthAccessToken: (
              t: string,
              p: object,
              cb: (e: unknown, a: string, r: string, p: Record<string, unknown>) => void,
            ) => void;
          };
        }
      )._oauth2;
      const refreshed = await new Promise<{ accessToken: string; refreshToken: string }>((resolve, reject) =>
        oauth2.getOAuthAccessToken(
          user.refreshToken,
          { grant_type: 'refresh_token' },
          (e, accessToken, refreshToken) => (e ? reject(e) : resolve({ accessToken, refreshToken })),
        ),
      );
      expect(refreshed.refreshToken).toBe(user.refreshToken);
      expect(refreshed.accessToken).not.toBe(user.accessToken);

      // 5. Replaying the code through the same client fails with HubSpot's error body, and the
      //    refresh token issued from that code stops working.
      const replay = await new Promise<{ statusCode: number; data: string }>((resolve, reject) =>
        oauth2.getOAuthAccessToken(
          callback.searchParams.get('code')!,
          { grant_type: 'authorization_code', redirect_uri: f.redirectUri },
          (e) => (e ? resolve(e as { statusCode: number; data: string }) : reject(new Error('replay accepted'))),
        ),
      );
      expect(replay.statusCode).toBe(400);
      expect(JSON.parse(replay.data)).toMatchObject({ status: 'BAD_AUTH_CODE', error: 'invalid_grant' });
      const dead = await new Promise<{ statusCode: number; data: string }>((resolve, reject) =>
        oauth2.getOAuthAccessToken(user.refreshToken, { grant_type: 'refresh_token' }, (e) =>
          e ? resolve(e as { statusCode: number; data: string }) : reject(new Error('refresh accepted')),
        ),
      );
      expect(JSON.parse(dead.data)).toMatchObject({ status: 'BAD_REFRESH_TOKEN', error: 'invalid_grant' });
    });
  });
});
