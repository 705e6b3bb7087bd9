import { SIGN_IN_FAILURES } from '../../src/oauth/install-page/sign-in-throttle';
import { EsdbStandIn } from '../support/esdb-standin/server';
import { formFields } from '../support/install-page-browser';
import { LIMITS_TEST_SCOPES } from '../support/limits-tokens';
import { describeWithRedis, RedisServer } from '../support/redis-server';
import type { HttpFixtures } from '../support/reliability-fixtures';
import { ServiceCluster, within } from '../support/service-cluster';
import { ensureBuilt } from '../support/service-process';

/*
 * Three service processes (dist/main.js) on one EventStoreDB stand-in and one real redis-server
 * (COUNTER_STORE_URL): together they allow exactly the configured limits, per app and account, and
 * lock an e-mail after as many failed sign-ins as one instance does. Then Redis goes away: quotas
 * count per instance, sign-ins and failed client authentications are refused (fail closed), and all
 * is shared again once Redis is back.
 */

jest.setTimeout(120_000);

const RATE_LIMIT_MAX = 30;
const TOKEN_RATE_LIMIT_MAX = 4;
const CLIENT_AUTH_FAILURE_MAX = 6;
const PASSWORD = 'correct horse battery staple'; // HttpFixtures.user's

const cluster = new ServiceCluster('redis');
const mint = (hubId: number, appId: number) => cluster.mint({ hubId, appId, scopes: LIMITS_TEST_SCOPES });

/** One sign-in through the install page of `base`: its form, its cookies, then the POST. */
async function signIn(base: string, installQuery: string, email: string, password: string): Promise<number> {
  const page = await fetch(`${base}/oauth/authorize?${installQuery}`, { redirect: 'manual' });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const fields = formFields(await page.text(), '/oauth/authorize/sign-in');
  const answer = await fetch(`${base}/oauth/authorize/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, email, password }).toString(),
  });
  await answer.arrayBuffer();
  return answer.status;
}

describeWithRedis('three instances sharing their limits through one Redis', () => {
  const redis = new RedisServer();
  const standIn = new EsdbStandIn();
  const instances = cluster.instances;
  let fx: HttpFixtures[] = [];

  beforeAll(async () => {
    ensureBuilt();
    await redis.start();
    await standIn.start();
    const shared = {
      EVENTSTORE_CONNECTION_STRING: standIn.connectionString,
      COUNTER_STORE_URL: redis.url,
      RATE_LIMIT_ENABLED: 'true',
      // Windows far longer than the test, so no place comes back while it runs.
      RATE_LIMIT_WINDOW_MS: '600000',
      RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
      TOKEN_RATE_LIMIT_MAX: String(TOKEN_RATE_LIMIT_MAX),
      CLIENT_AUTH_FAILURE_WINDOW_MS: '600000',
      CLIENT_AUTH_FAILURE_MAX: String(CLIENT_AUTH_FAILURE_MAX),
    };
    await cluster.start([shared, shared, shared]);
    fx = cluster.fx;
  }, 240_000);

  afterAll(async () => {
    await cluster.stop();
    await standIn.stop();
    await redis.stop();
  });

  /** Waits until an account written on instance 0 is known to all three. */
  async function everywhere(hubId: number): Promise<void> {
    for (const i of [0, 1, 2]) {
      await within(2000, `account ${hubId} on instance ${i}`, async () => {
        return (await fx[i]!.admin('GET', `/admin/v1/accounts/${hubId}`)).status === 200;
      });
    }
  }

  it('HubSpot limit: calls spread over the three allow exactly RATE_LIMIT_MAX per app and account', async () => {
    const [a, b] = [await fx[0]!.account(), await fx[0]!.account()];
    await everywhere(a.hubId);
    await everywhere(b.hubId);
    const call = (i: number, token: string) =>
      fetch(`${instances[i % 3]!.url}/crm/v3/limits/custom-properties`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const tokenA = mint(a.hubId, 7);
    const answers = await Promise.all(Array.from({ length: 3 * RATE_LIMIT_MAX }, (_, i) => call(i, tokenA)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(RATE_LIMIT_MAX);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * RATE_LIMIT_MAX);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({
      policyName: 'TEN_SECONDLY_ROLLING',
      groupName: `publicapp:7:${a.hubId}`,
    });
    // Each instance refused some: none was counting alone.
    for (const i of [0, 1, 2]) expect(statuses.filter((s, n) => n % 3 === i && s === 429).length).toBeGreaterThan(0);
    // Another account, and another app in the same account, have budgets of their own.
    for (const token of [mint(b.hubId, 7), mint(a.hubId, 8)]) {
      const own = await Promise.all(Array.from({ length: RATE_LIMIT_MAX + 3 }, (_, i) => call(i, token)));
      expect(own.filter((r) => r.status === 200)).toHaveLength(RATE_LIMIT_MAX);
    }
  });

  it('token requests: refresh grants spread over the three allow exactly TOKEN_RATE_LIMIT_MAX', async () => {
    const dev = await fx[0]!.account();
    const app = await fx[0]!.app(dev.hubId, ['oauth']);
    const { hubId } = await fx[0]!.account();
    const { userId } = await fx[0]!.user([hubId]);
    const tokens = await fx[0]!.exchange(app, await fx[0]!.installCode(app.appId, hubId, userId));
    expect(tokens.status).toBe(200);
    await everywhere(hubId);
    const answers = await Promise.all(
      Array.from({ length: 3 * TOKEN_RATE_LIMIT_MAX }, (_, i) => fx[i % 3]!.refresh(app, tokens.body.refresh_token)),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(TOKEN_RATE_LIMIT_MAX);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(2 * TOKEN_RATE_LIMIT_MAX);
  });

  it('client authentication: the failures on all three together reach the throttle', async () => {
    const dev = await fx[0]!.account();
    const app = await fx[0]!.app(dev.hubId, ['oauth']);
    await everywhere(dev.hubId);
    const bad = { grant_type: 'refresh_token', refresh_token: 'x', client_id: app.clientId, client_secret: 'wrong' };
    for (let i = 0; i < CLIENT_AUTH_FAILURE_MAX; i++) expect((await fx[i % 3]!.token(bad)).status).toBe(401);
    for (const i of [0, 1, 2]) {
      const throttled = await fx[i]!.token(bad);
      expect(throttled.status).toBe(429);
      expect(throttled.body).toMatchObject({ policyName: 'CLIENT_AUTHENTICATION_FAILURES' });
    }
  });

  let installQuery = '';
  it(`sign-in: ${SIGN_IN_FAILURES.perEmail} failures spread over the three lock the e-mail everywhere, as on one instance`, async () => {
    const dev = await fx[0]!.account();
    const app = await fx[0]!.app(dev.hubId, ['oauth']);
    const { hubId } = await fx[0]!.account();
    const { email } = await fx[0]!.user([hubId]);
    await everywhere(hubId);
    installQuery = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: app.redirectUrls[0]!,
      scope: 'oauth',
    }).toString();
    for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) {
      expect(await signIn(instances[i % 3]!.url, installQuery, email, `wrong-${i}`)).toBe(401);
    }
    // The right password, on each instance: locked (429), not signed in.
    for (const s of instances) expect(await signIn(s.url, installQuery, email, PASSWORD)).toBe(429);
    // Another user of the same account is not locked (the address's budget of 20 is not used up).
    const other = await fx[0]!.user([hubId]);
    await within(2000, 'the new user on instance 2', async () => {
      return (await signIn(instances[2]!.url, installQuery, other.email, PASSWORD)) === 303;
    });
  });

  it('Redis gone: sign-ins and failed client authentications refused (fail closed), HubSpot limits per instance; shared again once it is back', async () => {
    const dev = await fx[0]!.account();
    const app = await fx[0]!.app(dev.hubId, ['oauth']);
    const { email } = await fx[0]!.user([dev.hubId]);
    await everywhere(dev.hubId);
    const port = redis.port;
    await redis.stop();

    const started = Date.now();
    expect(await signIn(instances[1]!.url, installQuery, email, PASSWORD)).toBe(503);
    const bad = { grant_type: 'refresh_token', refresh_token: 'x', client_id: app.clientId, client_secret: 'wrong' };
    const throttled = await fx[2]!.token(bad);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toMatchObject({ policyName: 'CLIENT_AUTHENTICATION_FAILURES' });
    const token = mint(dev.hubId, 9);
    const call = (i: number) =>
      fetch(`${instances[i]!.url}/crm/v3/limits/custom-properties`, { headers: { authorization: `Bearer ${token}` } });
    const perInstance = await Promise.all(Array.from({ length: RATE_LIMIT_MAX + 2 }, () => call(0)));
    expect(perInstance.filter((r) => r.status === 200)).toHaveLength(RATE_LIMIT_MAX);
    expect((await call(1)).status).toBe(200); // another instance: its own count meanwhile
    expect(Date.now() - started).toBeLessThan(20_000); // refusals come fast, nothing hangs

    await redis.start(port);
    await within(15_000, 'sign-in shared again on instance 1', async () => {
      return (await signIn(instances[1]!.url, installQuery, email, PASSWORD)) === 303;
    });
  });
});
