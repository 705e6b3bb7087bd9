import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { OAuthModule } from '../../src/oauth/oauth.module';
import { SCOPES } from '../../src/platform/scopes/scope-catalog';
import {
  allEvents,
  exchangeCode,
  expectOAuthError,
  installAndExchange,
  installCode,
  oauthFixture,
  OAuthFixture,
  refresh,
  tokenRequest,
} from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('POST /oauth/v1/token', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let other: OAuthFixture;
  beforeAll(async () => {
    t = await startTestApp({ modules: [OAuthModule] });
    f = await oauthFixture(t, {
      redirectUrls: ['https://app.example.com/oauth/callback', 'https://app.example.com/other'],
    });
    other = await oauthFixture(t);
  });
  afterAll(() => t.close());

  describe('authorization_code grant', () => {
    it("200 with HubSpot's token response and no-store headers", async () => {
      const { code, scopes } = await installCode(t, f);
      const r = await exchangeCode(t, f, code);
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['pragma']).toBe('no-cache');
      const body = r.json();
      expectOAuthSchema('AccessTokenResponse', body, { strict: true });
      expectOAuthSchema('TokenResponseIF', body);
      expect(body).toEqual({
        token_type: 'bearer',
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        expires_in: 1800,
        token_use: 'access_token',
        hub_id: f.hubId,
        user_id: f.userId,
        scopes,
      });
      expect([...scopes].sort()).toEqual(['crm.objects.contacts.read', 'crm.objects.custom.read', 'oauth', 'tickets']);
      expect(body.access_token.length).toBeLessThanOrEqual(512);
    });

    it('authenticates the client with HTTP Basic too', async () => {
      const { code } = await installCode(t, f);
      const r = await tokenRequest(
        t,
        { grant_type: 'authorization_code', code, redirect_uri: f.redirectUri },
        { authorization: basic(f.clientId, f.clientSecret) },
      );
      expect(r.statusCode).toBe(200);
    });

    it('refuses a missing, unknown or foreign code without using it up', async () => {
      expectOAuthError(await exchangeCode(t, f, ''), 400, 'BAD_AUTH_CODE', 'invalid_request');
      expectOAuthError(await exchangeCode(t, f, 'na1-not-a-code'), 400, 'BAD_AUTH_CODE', 'invalid_grant');
      const { code } = await installCode(t, f);
      // Another app, with its own valid credentials, cannot redeem this app's code ...
      expectOAuthError(
        await exchangeCode(t, other, code, { redirect_uri: f.redirectUri }),
        400,
        'BAD_AUTH_CODE',
        'invalid_grant',
      );
      // ... and its attempt did not burn it.
      expect((await exchangeCode(t, f, code)).statusCode).toBe(200);
    });

    it('needs redirect_uri equal, byte for byte, to the one the code was issued for', async () => {
      const { code } = await installCode(t, f);
      expectOAuthError(
        await exchangeCode(t, f, code, { redirect_uri: undefined }),
        400,
        'BAD_REDIRECT_URI',
        'invalid_request',
      );
      for (const uri of [
        'https://app.example.com/other',
        `${f.redirectUri}/`,
        f.redirectUri.toUpperCase(),
        'https://app.example.com:443/oauth/callback',
      ]) {
        expectOAuthError(
          await exchangeCode(t, f, code, { redirect_uri: uri }),
          400,
          'MISMATCH_REDIRECT_URI_AUTH_CODE',
          'invalid_grant',
        );
      }
      expect((await exchangeCode(t, f, code)).statusCode).toBe(200);
    });

    it('refuses an expired code with EXPIRED_AUTH_CODE', async () => {
      const { code } = await installCode(t, f);
      t.clock.advance(300_000); // AUTH_CODE_TTL_SECONDS defaults to 300
      expectOAuthError(await exchangeCode(t, f, code), 400, 'EXPIRED_AUTH_CODE', 'invalid_grant');
    });

    it('PKCE S256: refuses a missing or wrong code_verifier, accepts the right one', async () => {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const { code } = await installCode(t, f, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
      expectOAuthError(await exchangeCode(t, f, code), 400, 'BAD_CODE_VERIFIER', 'invalid_grant');
      expectOAuthError(
        await exchangeCode(t, f, code, { code_verifier: randomBytes(32).toString('base64url') }),
        400,
        'BAD_CODE_VERIFIER',
        'invalid_grant',
      );
      expect((await exchangeCode(t, f, code, { code_verifier: verifier })).statusCode).toBe(200);
      // A verifier for a code issued without a challenge is a downgrade: refused.
      const plain = await installCode(t, f);
      expectOAuthError(
        await exchangeCode(t, f, plain.code, { code_verifier: verifier }),
        400,
        'BAD_CODE_VERIFIER',
        'invalid_grant',
      );
    });

    it('a replayed code is refused and every token issued from it is revoked: the refresh token and its access tokens (RFC 6749 §4.1.2; issue 41, item 14)', async () => {
      const { code } = await installCode(t, f);
      const first = (await exchangeCode(t, f, code)).json();
      const refreshed = await refresh(t, f, first.refresh_token);
      expect(refreshed.statusCode).toBe(200);
      // Another exchange of the same install and user: not issued from the replayed code, so it stays.
      const unrelated = (await exchangeCode(t, f, (await installCode(t, f)).code)).json();
      const accessTokenStatus = async (token: string) =>
        (await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${token}` })).statusCode;
      expect(await accessTokenStatus(first.access_token)).toBe(200);
      expectOAuthError(await exchangeCode(t, f, code), 400, 'BAD_AUTH_CODE', 'invalid_grant');
      expectOAuthError(await refresh(t, f, first.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      const meta = await t.inject({ method: 'GET', url: `/oauth/v1/refresh-tokens/${first.refresh_token}` });
      expect(meta.statusCode).toBe(404);
      // The access tokens from the code and from its refresh token are refused from the refusal on.
      expect(await accessTokenStatus(first.access_token)).toBe(401);
      expect(await accessTokenStatus(refreshed.json().access_token)).toBe(401);
      const introspect = (token: string) =>
        t.inject({
          method: 'POST',
          url: '/oauth/2026-03/token/introspect',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ client_id: f.clientId, client_secret: f.clientSecret, token }).toString(),
        });
      expect((await introspect(first.access_token)).json()).toEqual({ active: false });
      expect(await accessTokenStatus(unrelated.access_token)).toBe(200);
      expect((await refresh(t, f, unrelated.refresh_token)).statusCode).toBe(200);
      const hash = createHash('sha256').update(first.refresh_token).digest('hex');
      const deleted = (await allEvents(t)).filter(
        (e) =>
          e.type === 'oauth.RefreshTokenDeleted' && (e.data as { refreshTokenHash: string }).refreshTokenHash === hash,
      );
      expect(deleted.map((e) => (e.data as { reason: string }).reason)).toEqual(['authorization_code_replayed']);
    });

    it('of concurrent redemptions of one code exactly one wins; the losers count as replays', async () => {
      await expectOneWinnerOfConcurrentRedemptions(t, f);
    });

    it('an uninstall voids codes not yet redeemed', async () => {
      const g = await oauthFixture(t);
      const { code } = await installCode(t, g);
      expect((await t.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`)).statusCode).toBe(204);
      expectOAuthError(await exchangeCode(t, g, code), 400, 'BAD_AUTH_CODE', 'invalid_grant');
    });

    it('with every scope of the catalog the access token stays within 512 characters', async () => {
      const account = await createAccount(t, { tier: 'enterprise' });
      const user = await createUser(t, { hubIds: [account.hubId] });
      const app = await createApp(t, { developerHubId: account.hubId, requiredScopes: [...SCOPES] });
      const g: OAuthFixture = {
        ...f,
        hubId: account.hubId,
        userId: user.userId,
        appId: app.appId,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        redirectUri: app.redirectUrls[0]!,
      };
      const body = await installAndExchange(t, g);
      expect(body.scopes).toEqual([...SCOPES]);
      expect(body.access_token.length).toBeLessThanOrEqual(512);
      const info = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${body.access_token}` });
      expect(info.json().scopes).toEqual([...SCOPES]);
    });
  });

  describe('refresh_token grant', () => {
    it('issues a new access token and returns the same refresh token (no rotation)', async () => {
      const first = await installAndExchange(t, f);
      t.clock.advance(60_000);
      const r = await refresh(t, f, first.refresh_token);
      expect(r.statusCode).toBe(200);
      expect(r.headers['cache-control']).toBe('no-store');
      const body = r.json();
      expectOAuthSchema('AccessTokenResponse', body, { strict: true });
      expect(body).toMatchObject({
        refresh_token: first.refresh_token,
        expires_in: 1800,
        token_type: 'bearer',
        token_use: 'access_token',
        hub_id: f.hubId,
        user_id: f.userId,
        scopes: first.scopes,
      });
      expect(body.access_token).not.toBe(first.access_token);
      // Several refreshes in a row keep working.
      for (let i = 0; i < 3; i++) expect((await refresh(t, f, first.refresh_token)).statusCode).toBe(200);
    });

    it('accepts refresh_token and client_secret in the query string, as the spec documents', async () => {
      const first = await installAndExchange(t, f);
      const r = await t.inject({
        method: 'POST',
        url: `/oauth/v1/token?refresh_token=${encodeURIComponent(first.refresh_token)}&client_secret=${encodeURIComponent(f.clientSecret)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'refresh_token', client_id: f.clientId }).toString(),
      });
      expect(r.statusCode).toBe(200);
    });

    it('refuses a missing, unknown, foreign or deleted refresh token', async () => {
      const first = await installAndExchange(t, f);
      expectOAuthError(await refresh(t, f, ''), 400, 'BAD_REFRESH_TOKEN', 'invalid_request');
      expectOAuthError(await refresh(t, f, 'na1-unknown'), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      expectOAuthError(await refresh(t, other, first.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      expect(
        (await t.inject({ method: 'DELETE', url: `/oauth/v1/refresh-tokens/${first.refresh_token}` })).statusCode,
      ).toBe(204);
      expectOAuthError(await refresh(t, f, first.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
    });

    it('stops working when the app is uninstalled, and stays dead after a re-install', async () => {
      const g = await oauthFixture(t);
      const first = await installAndExchange(t, g);
      expect((await t.admin('DELETE', `/admin/v1/accounts/${g.hubId}/installs/${g.appId}`)).statusCode).toBe(204);
      expectOAuthError(await refresh(t, g, first.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      const second = await installAndExchange(t, g);
      expectOAuthError(await refresh(t, g, first.refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
      expect((await refresh(t, g, second.refresh_token)).statusCode).toBe(200);
    });
  });

  describe('request and client errors', () => {
    it('a JSON body is BAD_GRANT_TYPE / unsupported_grant_type (also malformed JSON, multipart, text)', async () => {
      const json = await t.inject({
        method: 'POST',
        url: '/oauth/v1/token',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          grant_type: 'refresh_token',
          client_id: f.clientId,
          client_secret: f.clientSecret,
          refresh_token: 'x',
        }),
      });
      expectOAuthError(json, 400, 'BAD_GRANT_TYPE', 'unsupported_grant_type');
      expect(json.headers['cache-control']).toBe('no-store');
      for (const [type, payload] of [
        ['application/json', '{"grant_type":'],
        [
          'multipart/form-data; boundary=x',
          '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nrefresh_token\r\n--x--',
        ],
        ['text/plain', 'grant_type=refresh_token'],
      ] as const) {
        const r = await t.inject({
          method: 'POST',
          url: '/oauth/v1/token',
          headers: { 'content-type': type },
          payload,
        });
        expectOAuthError(r, 400, 'BAD_GRANT_TYPE', 'unsupported_grant_type');
      }
    });

    it('a missing grant_type is invalid_request, an unknown one unsupported_grant_type', async () => {
      expectOAuthError(
        await tokenRequest(t, { client_id: f.clientId, client_secret: f.clientSecret }),
        400,
        'BAD_GRANT_TYPE',
        'invalid_request',
      );
      expectOAuthError(
        await t.inject({ method: 'POST', url: '/oauth/v1/token' }),
        400,
        'BAD_GRANT_TYPE',
        'invalid_request',
      );
      for (const g of ['client_credentials', 'password', 'implicit', 'AUTHORIZATION_CODE']) {
        expectOAuthError(
          await tokenRequest(t, { grant_type: g, client_id: f.clientId, client_secret: f.clientSecret }),
          400,
          'BAD_GRANT_TYPE',
          'unsupported_grant_type',
        );
      }
    });

    it('a parameter given twice is invalid_request', async () => {
      const r = await t.inject({
        method: 'POST',
        url: '/oauth/v1/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=refresh_token&grant_type=authorization_code',
      });
      expectOAuthError(r, 400, 'BAD_REQUEST', 'invalid_request');
    });

    it('missing, unknown or wrong client credentials are 401 invalid_client', async () => {
      const { code } = await installCode(t, f);
      const base = { grant_type: 'authorization_code', code, redirect_uri: f.redirectUri };
      const none = expectOAuthError(await tokenRequest(t, base), 401, 'BAD_CLIENT_ID', 'invalid_client');
      expect(none.category).toBe('INVALID_AUTHENTICATION');
      expectOAuthError(
        await tokenRequest(t, {
          ...base,
          client_id: '00000000-0000-4000-8000-000000000000',
          client_secret: f.clientSecret,
        }),
        401,
        'BAD_CLIENT_ID',
        'invalid_client',
      );
      expectOAuthError(
        await tokenRequest(t, { ...base, client_id: f.clientId, client_secret: `${f.clientSecret}x` }),
        401,
        'BAD_CLIENT_SECRET',
        'invalid_client',
      );
      expectOAuthError(
        await tokenRequest(t, { ...base, client_id: f.clientId }),
        401,
        'BAD_CLIENT_SECRET',
        'invalid_client',
      );
      const wrongBasic = await tokenRequest(t, base, { authorization: basic(f.clientId, 'wrong') });
      expectOAuthError(wrongBasic, 401, 'BAD_CLIENT_SECRET', 'invalid_client');
      expect(wrongBasic.headers['www-authenticate']).toMatch(/^Basic /);
      const badBasic = await tokenRequest(t, base, { authorization: 'Basic %%%' });
      expectOAuthError(badBasic, 401, 'BAD_CLIENT_ID', 'invalid_client');
      expect(badBasic.headers['www-authenticate']).toMatch(/^Basic /);
      // None of those attempts used the code up.
      expect((await exchangeCode(t, f, code)).statusCode).toBe(200);
    });

    it('HTTP Basic and client_secret in the body together are refused', async () => {
      const { code } = await installCode(t, f);
      const r = await tokenRequest(
        t,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: f.redirectUri,
          client_id: f.clientId,
          client_secret: f.clientSecret,
        },
        { authorization: basic(f.clientId, f.clientSecret) },
      );
      expectOAuthError(r, 400, 'BAD_REQUEST', 'invalid_request');
    });
  });

  it('no event carries token material or the client secret', async () => {
    const { code } = await installCode(t, f);
    const tokens = (await exchangeCode(t, f, code)).json();
    const refreshed = (await refresh(t, f, tokens.refresh_token)).json();
    const stored = JSON.stringify(await allEvents(t));
    for (const secret of [code, tokens.refresh_token, tokens.access_token, refreshed.access_token, f.clientSecret]) {
      expect(stored.includes(secret)).toBe(false);
    }
    // Only the signature-free parts name tokens: hashes and token ids.
    expect(stored).toContain(createHash('sha256').update(tokens.refresh_token).digest('hex'));
  });
});

/**
 * Eight concurrent redemptions of one code: exactly one wins, the others are replays, and every
 * refresh token written during the race ends deleted (RFC 6749 §4.1.2).
 */
async function expectOneWinnerOfConcurrentRedemptions(t: TestApp, f: OAuthFixture): Promise<void> {
  const { code } = await installCode(t, f);
  const before = (await allEvents(t)).length;
  const results = await Promise.all(Array.from({ length: 8 }, () => exchangeCode(t, f, code)));
  const winners = results.filter((r) => r.statusCode === 200);
  expect(winners).toHaveLength(1);
  for (const r of results.filter((x) => x.statusCode !== 200))
    expectOAuthError(r, 400, 'BAD_AUTH_CODE', 'invalid_grant');
  const events = (await allEvents(t)).slice(before);
  expect(events.filter((e) => e.type === 'oauth.AuthorizationCodeRedeemed')).toHaveLength(1);
  expect(events.filter((e) => e.type === 'oauth.AccessTokenIssued')).toHaveLength(1);
  // Every refresh token written during the race ends deleted: the winner's because the code was
  // used more than once (RFC 6749 §4.1.2), the losers' because they were never handed out.
  const issued = new Set(
    events
      .filter((e) => e.type === 'oauth.RefreshTokenIssued')
      .map((e) => (e.data as { refreshTokenHash: string }).refreshTokenHash),
  );
  const deleted = new Set(
    events
      .filter((e) => e.type === 'oauth.RefreshTokenDeleted')
      .map((e) => (e.data as { refreshTokenHash: string }).refreshTokenHash),
  );
  expect([...issued].every((h) => deleted.has(h))).toBe(true);
  expectOAuthError(await refresh(t, f, winners[0]!.json().refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
}

/**
 * A store that, like EventStoreDB, may apply concurrent appends out of call order, made adversarial:
 * every refresh-token append waits 50 event-loop turns before it reaches the SQLite store
 * underneath, so an append of the code made at the same time would overtake it. The token
 * endpoint must then wait for the refresh token itself (else a replay could miss it and the
 * winner's token would survive).
 */
function reorderingStore(inner: EventStore): EventStore {
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return {
    kind: inner.kind,
    appendsInCallOrder: false,
    append: async (streamId, events, expected) => {
      if (streamId.startsWith('oauth.refresh-token-')) await turns(50);
      return inner.append(streamId, events, expected);
    },
    readStream: (streamId, fromRevision) => inner.readStream(streamId, fromRevision),
    readAll: (options) => inner.readAll(options),
    subscribeToAll: (after) => inner.subscribeToAll(after),
    headPosition: () => inner.headPosition(),
    identity: () => inner.identity(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

describe('POST /oauth/v1/token on a store that may reorder concurrent appends', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let dir: string;
  let inner: SqliteEventStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-reorder-'));
    t = await startTestApp({
      modules: [OAuthModule],
      dataDir: dir,
      eventStore: reorderingStore((inner = new SqliteEventStore(join(dir, 'events.sqlite')))),
    });
    f = await oauthFixture(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('of concurrent redemptions exactly one wins; replays revoke its refresh token', async () => {
    for (let trial = 0; trial < 3; trial++) await expectOneWinnerOfConcurrentRedemptions(t, f);
  });

  it('a replay sent the moment the code shows as redeemed still finds and revokes the refresh token', async () => {
    const { code } = await installCode(t, f);
    const codeStream = `oauth.auth-code-${createHash('sha256').update(code).digest('hex')}`;
    const first = exchangeCode(t, f, code);
    let settled = false;
    void first.finally(() => (settled = true));
    // Wait, turn by turn (bounded), until the code's redemption is stored; then replay at once.
    for (let turn = 0; turn < 10_000 && !settled; turn++) {
      if ((await inner.readStream(codeStream)).length > 1) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expectOAuthError(await exchangeCode(t, f, code), 400, 'BAD_AUTH_CODE', 'invalid_grant');
    const winner = await first;
    expect(winner.statusCode).toBe(200);
    expectOAuthError(await refresh(t, f, winner.json().refresh_token), 400, 'BAD_REFRESH_TOKEN', 'invalid_grant');
  });

  it('a plain exchange and refresh work', async () => {
    const { code } = await installCode(t, f);
    const r = await exchangeCode(t, f, code);
    expect(r.statusCode).toBe(200);
    expect((await refresh(t, f, r.json().refresh_token)).statusCode).toBe(200);
  });
});
