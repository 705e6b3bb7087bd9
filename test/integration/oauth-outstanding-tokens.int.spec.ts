import { OutstandingTokensQueries } from '../../src/oauth/oauth.queries';
import { OAuthModule } from '../../src/oauth/oauth.module';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { installAndExchange, oauthFixture, refresh, type OAuthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

/** Tokens outstanding per install (count, latest expiry): what the console shows, from the read models. */
describe('OutstandingTokensQueries', () => {
  let t: TestApp;
  let q: OutstandingTokensQueries;

  beforeAll(async () => {
    t = await startTestApp({ modules: [OAuthModule] });
    q = t.app.get(OutstandingTokensQueries);
  }, 30_000);
  afterAll(() => t.close());

  /** The read models caught up with every committed event. */
  const settled = async () =>
    t.app.get(ProjectionRunner).waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition());
  const of = async (f: OAuthFixture) => {
    await settled();
    return q.of(f.appId, f.hubId);
  };
  const installUrl = (f: OAuthFixture) => `/admin/v1/accounts/${f.hubId}/installs/${f.appId}`;

  it('counts live access and refresh tokens and gives the latest expiry on the install’s clock', async () => {
    const f = await oauthFixture(t);
    expect(await of(f)).toEqual({ accessTokens: 0, latestAccessTokenExpiresAt: null, refreshTokens: 0 });
    const first = await installAndExchange(t, f);
    const issuedAt = t.clock.now();
    expect(await of(f)).toEqual({
      accessTokens: 1,
      latestAccessTokenExpiresAt: issuedAt + first.expires_in * 1000,
      refreshTokens: 1,
    });
    t.clock.advance(60_000);
    expect((await refresh(t, f, first.refresh_token)).statusCode).toBe(200);
    expect(await of(f)).toEqual({
      accessTokens: 2,
      latestAccessTokenExpiresAt: issuedAt + 60_000 + first.expires_in * 1000,
      refreshTokens: 1,
    });
    // The first one expires on its own; the second is still counted.
    t.clock.advance(first.expires_in * 1000 - 60_000);
    expect((await of(f)).accessTokens).toBe(1);
    // Moving the install's clock past the second one's expiry leaves none.
    expect((await t.admin('POST', `${installUrl(f)}/clock`, { advanceSeconds: 120 })).statusCode).toBe(200);
    expect((await of(f)).accessTokens).toBe(0);
    expect((await of(f)).refreshTokens).toBe(1);
  });

  it('drops tokens expired by an admin, revoked by their client, and every token of an uninstalled install', async () => {
    const f = await oauthFixture(t);
    const a = await installAndExchange(t, f);
    const b = await installAndExchange(t, f);
    expect(await of(f)).toMatchObject({ accessTokens: 2, refreshTokens: 2 });

    const r = await t.inject({
      method: 'POST',
      url: '/oauth/2026-03/token/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        client_id: f.clientId,
        client_secret: f.clientSecret,
        token: a.access_token,
      }).toString(),
    });
    expect(r.statusCode).toBe(200);
    expect(await of(f)).toMatchObject({ accessTokens: 1, refreshTokens: 2 });

    expect((await t.admin('DELETE', `/oauth/v1/refresh-tokens/${b.refresh_token}`)).statusCode).toBe(204);
    expect(await of(f)).toMatchObject({ accessTokens: 1, refreshTokens: 1 });

    expect((await t.admin('POST', `${installUrl(f)}/expire-access-tokens`)).statusCode).toBe(200);
    expect(await of(f)).toMatchObject({ accessTokens: 0, latestAccessTokenExpiresAt: null, refreshTokens: 1 });
    expect((await refresh(t, f, a.refresh_token)).statusCode).toBe(200);
    expect(await of(f)).toMatchObject({ accessTokens: 1, refreshTokens: 1 });

    expect((await t.admin('DELETE', installUrl(f))).statusCode).toBe(204);
    expect(await of(f)).toEqual({ accessTokens: 0, latestAccessTokenExpiresAt: null, refreshTokens: 0 });
  });

  it('a reset of the install’s clock moves the tokens issued under the moved clock earlier, as the verifier does', async () => {
    const f = await oauthFixture(t);
    await installAndExchange(t, f);
    expect((await t.admin('POST', `${installUrl(f)}/clock`, { advanceSeconds: 86_400 })).statusCode).toBe(200);
    const moved = await installAndExchange(t, f);
    const expectedExpiry = t.clock.now() + 86_400_000 + moved.expires_in * 1000;
    // The token issued in real time expired on the moved clock; the new one lives on it.
    expect(await of(f)).toMatchObject({ accessTokens: 1, latestAccessTokenExpiresAt: expectedExpiry });
    expect((await t.admin('DELETE', `${installUrl(f)}/clock`)).statusCode).toBe(204);
    expect(await of(f)).toMatchObject({ accessTokens: 1, latestAccessTokenExpiresAt: expectedExpiry - 86_400_000 });
    // Checked against the verifier: the token still works until that time.
    const metadata = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${moved.access_token}` });
    expect(metadata.statusCode).toBe(200);
  });

  it('rebuilds to the same counts', async () => {
    const f = await oauthFixture(t);
    await installAndExchange(t, f);
    const before = await of(f);
    await t.app.get(ProjectionRunner).rebuild('oauth-outstanding-tokens');
    expect(q.of(f.appId, f.hubId)).toEqual(before);
  });
});
