import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { describeWithRedis, RedisServer } from '../support/redis-server';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 41, item 8: a hung Redis (COUNTER_STORE_URL; connected, answering nothing) used to add its
 * whole 1 s command timeout to every counted request. Now the first one waits it, the breaker opens,
 * and the next ones are answered at once (HubSpot's limit counted in this instance meanwhile).
 */
describeWithRedis('a hung Redis costs one timeout, not one per request', () => {
  const redis = new RedisServer();
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    await redis.start();
    t = await startTestApp({ env: { COUNTER_STORE_URL: redis.url, RATE_LIMIT_ENABLED: 'true' } });
    const account = await createAccount(t, { tier: 'enterprise' });
    token = mintLimitsToken(t, { hubId: account.hubId, scopes: LIMITS_TEST_SCOPES });
  }, 30_000);
  afterAll(async () => {
    redis.resume();
    await t.close();
    await redis.stop();
  });

  const call = () =>
    t.inject({
      method: 'GET',
      url: '/crm/v3/limits/calculated-properties',
      headers: { authorization: `Bearer ${token}` },
    });

  it('the first counted request after Redis hangs waits the timeout; the next ten are answered at once', async () => {
    expect((await call()).statusCode).toBe(200); // Redis answering: shared counting
    redis.pause();
    try {
      let started = performance.now();
      const first = await call();
      expect(first.statusCode).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(900); // the 1 s command timeout
      started = performance.now();
      for (let i = 0; i < 10; i++) {
        const r = await call();
        expect(r.statusCode).toBe(200);
        expect(r.headers['x-hubspot-ratelimit-max']).toBeDefined(); // still counted, in this instance
      }
      // Before the breaker: 10 × 1 s.
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      redis.resume();
    }
  }, 30_000);
});
