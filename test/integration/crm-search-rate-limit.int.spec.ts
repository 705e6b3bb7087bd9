import { SearchRateLimit } from '../../src/crm-search/application/search-rate-limit';
import { ManualClock } from '../support/manual-clock';
import type { AppConfig } from '../../src/platform/config/config';
import type { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { RedisCounterStore } from '../../src/platform/rate-limit/redis-counter-store';
import { describeWithRedis, RedisServer } from '../support/redis-server';

/*
 * HubSpot's search limit (5 a second per account) shared by several instances through one Redis:
 * three instances' limiters, each with its own RedisCounterStore on one redis-server, allow five
 * searches of an account between them, then answer the SECONDLY 429. Time is one ManualClock handed
 * to the stores (the scripts' time), so the window moves only when the test moves it.
 */
jest.setTimeout(60_000);

describeWithRedis('search limit shared through the counter store', () => {
  const server = new RedisServer();
  const stores: RedisCounterStore[] = [];
  beforeAll(() => server.start());
  afterAll(async () => {
    for (const s of stores) await s.close();
    await server.stop();
  });

  it('three instances allow 5 searches of an account per second between them', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27));
    const config = { rateLimit: { enabled: true } } as AppConfig;
    const instances: SearchRateLimit[] = [];
    for (let i = 0; i < 3; i++) {
      const store = new RedisCounterStore(server.url, { prefix: 'search-test:', clock, commandTimeoutMs: 2000 });
      stores.push(store);
      expect(await store.connect()).toBe(true);
      instances.push(new SearchRateLimit(config, clock, store));
    }
    const outcome = (p: Promise<void>) =>
      p.then(
        () => 200,
        (e: HubSpotError) => {
          expect(e.message).toBe('You have reached your secondly limit.');
          expect(e.extras.fields).toMatchObject({ policyName: 'SECONDLY' });
          return e.httpStatus;
        },
      );
    const first = [];
    for (let i = 0; i < 6; i++) first.push(await outcome(instances[i % 3]!.acquire(1001)));
    expect(first).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await outcome(instances[2]!.acquire(1002))).toBe(200); // another account: its own budget
    clock.advance(999);
    expect(await outcome(instances[1]!.acquire(1001))).toBe(429);
    clock.advance(1);
    expect(await outcome(instances[1]!.acquire(1001))).toBe(200);
  });
});
