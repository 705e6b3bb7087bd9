import { installAndExchange, installCode, exchangeCode, oauthFixture, refresh } from '../support/oauth-fixtures';
import { expectOAuthSchema } from '../support/oauth-schema';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Successful token requests are limited too (issue 14, finding 11): HubSpot's per-app limit per app
 * and account, TOKEN_RATE_LIMIT_MAX / TOKEN_RATE_LIMIT_WINDOW_MS, the same 429 as the CRM's.
 */
describe('token endpoint: per-app limit on successful token requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ENABLED: 'true', TOKEN_RATE_LIMIT_MAX: '3', TOKEN_RATE_LIMIT_WINDOW_MS: '10000' },
    });
  });
  afterAll(() => t.close());

  it('refresh grants: the 4th in the window is 429 TEN_SECONDLY_ROLLING with the headers; other installs and the next window are free', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    for (let i = 0; i < 3; i++) expect((await refresh(t, f, tokens.refresh_token)).statusCode).toBe(200);

    const refused = await refresh(t, f, tokens.refresh_token);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.json()).toEqual({
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      correlationId: refused.headers['x-hubspot-correlation-id'],
      policyName: 'TEN_SECONDLY_ROLLING',
      groupName: `publicapp:${f.appId}:${f.hubId}`,
      category: 'RATE_LIMITS',
    });
    expectOAuthSchema('Error', refused.json());
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.headers['x-hubspot-ratelimit-max']).toBe('3');
    expect(refused.headers['x-hubspot-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-hubspot-ratelimit-interval-milliseconds']).toBe('10000');
    expect(refused.headers['cache-control']).toBe('no-store');
    // the dated endpoint shares the budget
    const dated = await t.inject({
      method: 'POST',
      url: '/oauth/2026-03/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: f.clientId,
        client_secret: f.clientSecret,
        refresh_token: tokens.refresh_token,
      }).toString(),
    });
    expect(dated.statusCode).toBe(429);

    // another account's install of another app is unaffected; a code exchange is not refused
    const other = await oauthFixture(t);
    const otherTokens = await installAndExchange(t, other);
    expect((await refresh(t, other, otherTokens.refresh_token)).statusCode).toBe(200);
    const again = await installCode(t, f);
    expect((await exchangeCode(t, f, again.code)).statusCode).toBe(200);

    t.clock.advance(10_000);
    expect((await refresh(t, f, tokens.refresh_token)).statusCode).toBe(200);
  });

  it('app tokens (client_credentials): limited per app', async () => {
    t.clock.advance(10_000);
    const f = await oauthFixture(t);
    const appToken = () =>
      t.inject({
        method: 'POST',
        url: '/oauth/2026-03/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: f.clientId,
          client_secret: f.clientSecret,
        }).toString(),
      });
    for (let i = 0; i < 3; i++) expect((await appToken()).statusCode).toBe(200);
    const refused = await appToken();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ policyName: 'TEN_SECONDLY_ROLLING', groupName: `publicapp:${f.appId}` });
  });
});
