import { Redis } from 'ioredis';
import { createServer } from 'node:net';
import { ManualClock } from '../../src/platform/clock';
import type { CounterStore, RollingWindowOptions } from '../../src/platform/rate-limit/counter-store';
import type { FailureBackoffOptions } from '../../src/platform/rate-limit/failure-backoff';
import { MemoryCounterStore } from '../../src/platform/rate-limit/memory-counter-store';
import { RedisCounterStore } from '../../src/platform/rate-limit/redis-counter-store';
import { describeWithRedis, RedisServer } from '../support/redis-server';

/*
 * The Redis counter store against a real redis-server on loopback: the same decisions as the
 * in-memory store for the same operations and times, exact limits under concurrent clients (the
 * Lua scripts are atomic), and the documented fail behaviour when Redis goes away.
 */

jest.setTimeout(60_000);

const window = (clock: ManualClock, max: number, whenUnreachable: RollingWindowOptions['whenUnreachable']) => ({
  windowMs: 10_000,
  max,
  localClock: clock,
  whenUnreachable,
});
const lockOptions: FailureBackoffOptions = {
  free: 3,
  baseLockMs: 1000,
  maxLockMs: 8000,
  forgetAfterMs: 60_000,
  resetOnSuccess: true,
};

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describeWithRedis('RedisCounterStore on a real redis-server', () => {
  const server = new RedisServer();
  const stores: RedisCounterStore[] = [];
  let prefixes = 0;
  const redisStore = async (
    clock?: ManualClock,
    extra: { onError?: (c: string, e: Error) => void; onBreaker?: (open: boolean) => void } = {},
  ) => {
    const store = new RedisCounterStore(server.url, {
      prefix: `test${prefixes++}:`,
      ...(clock ? { clock } : {}),
      commandTimeoutMs: 500,
      ...extra,
    });
    stores.push(store);
    expect(await store.connect()).toBe(true);
    return store;
  };

  beforeAll(() => server.start());
  afterAll(async () => {
    for (const s of stores) await s.close();
    await server.stop();
  });

  it('decides like the in-memory store for the same operations at the same times (rolling window)', async () => {
    const clock = new ManualClock();
    const redis = await redisStore(clock);
    const memory: CounterStore = new MemoryCounterStore();
    const options = window(clock, 5, 'refuse');
    const [a, b] = [redis.rollingWindow('w', options), memory.rollingWindow('w', options)];
    const next = random(7);
    for (let step = 0; step < 400; step++) {
      const key = `k${Math.floor(next() * 3)}`;
      const r = next();
      const op = r < 0.5 ? 'tryAcquire' : r < 0.8 ? 'checkThenRecord' : 'check';
      const [fromRedis, fromMemory] = [await a[op](key), await b[op](key)];
      expect({ step, op, ...fromRedis }).toEqual({ step, op, ...fromMemory });
      clock.advance(Math.floor(next() * 1500));
    }
  });

  it('decides like the in-memory store for the sign-in failure lock (locks, doubling, reset, forgetting)', async () => {
    const clock = new ManualClock();
    const redis = await redisStore(clock);
    const memory = new MemoryCounterStore();
    const [a, b] = [redis.failureLock('f', lockOptions, clock), memory.failureLock('f', lockOptions, clock)];
    const next = random(11);
    const held: Array<{ key: string; ta: string; tb: string }> = [];
    for (let step = 0; step < 300; step++) {
      const key = `e${Math.floor(next() * 2)}`;
      const r = next();
      if (r < 0.5 || held.length === 0) {
        const [ra, rb] = [await a.reserve(key), await b.reserve(key)];
        expect({ step, allowed: ra.allowed, wait: 'retryAfterMs' in ra ? ra.retryAfterMs : 0 }).toEqual({
          step,
          allowed: rb.allowed,
          wait: 'retryAfterMs' in rb ? rb.retryAfterMs : 0,
        });
        if (ra.allowed && rb.allowed) held.push({ key, ta: ra.ticket, tb: rb.ticket });
      } else {
        const { key: k, ta, tb } = held.splice(Math.floor(next() * held.length), 1)[0]!;
        const outcome = r < 0.85 ? 'failed' : r < 0.95 ? 'succeeded' : 'release';
        await a[outcome](k, ta);
        await b[outcome](k, tb);
      }
      if (r < 0.1) {
        // A quiet spell long enough to forget: settle what is in flight first (a reservation held
        // that long lapses in Redis by design, see the next test).
        for (const h of held.splice(0)) {
          await a.failed(h.key, h.ta);
          await b.failed(h.key, h.tb);
        }
        clock.advance(Math.floor(next() * 70_000));
      } else {
        clock.advance(Math.floor(next() * 900));
      }
    }
  });

  it('several clients racing on one key allow exactly the limit (atomic scripts, Redis time)', async () => {
    const prefix = `race${Date.now()}:`;
    const shared = [0, 1, 2].map(() => new RedisCounterStore(server.url, { prefix, commandTimeoutMs: 2000 }));
    stores.push(...shared);
    await Promise.all(shared.map((s) => s.connect()));
    const limiters = shared.map((s) => s.rollingWindow('publicapp', window(new ManualClock(), 110, 'count-locally')));
    const decisions = await Promise.all(
      Array.from({ length: 330 }, (_, i) => limiters[i % 3]!.tryAcquire('publicapp:1:2')),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(110);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
  });

  it('a reservation never settled (its instance died) lapses after 60 s instead of locking for ever', async () => {
    const clock = new ManualClock();
    const lock = (await redisStore(clock)).failureLock('lapse', { ...lockOptions, free: 1 }, clock);
    expect((await lock.reserve('x')).allowed).toBe(true); // never settled
    expect(await lock.reserve('x')).toEqual({ allowed: false, retryAfterMs: 1000 });
    clock.advance(60_000);
    expect((await lock.reserve('x')).allowed).toBe(true);
  });

  it('a clock stepped backwards does not stretch a lock past its bound', async () => {
    const clock = new ManualClock();
    const lock = (await redisStore(clock)).failureLock('step', { ...lockOptions, free: 1 }, clock);
    const r = await lock.reserve('s');
    if (!r.allowed) throw new Error('first attempt refused');
    await lock.failed('s', r.ticket);
    clock.set(clock.now() - 46 * 60_000);
    const refused = await lock.reserve('s');
    expect(refused.allowed).toBe(false);
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(lockOptions.maxLockMs);
  });

  it('Redis not there at start: the store keeps trying and is shared once Redis starts', async () => {
    const later = new RedisServer();
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => resolve(p));
      });
    });
    const store = new RedisCounterStore(`redis://127.0.0.1:${port}`, { commandTimeoutMs: 300 });
    stores.push(store);
    expect(await store.connect(300)).toBe(false);
    const throttle = store.rollingWindow('late', window(new ManualClock(), 2, 'refuse'));
    expect((await throttle.checkThenRecord('k')).allowed).toBe(false); // fail closed meanwhile
    await later.start(port);
    try {
      expect(await store.connect(10_000)).toBe(true);
      expect((await throttle.checkThenRecord('k')).allowed).toBe(true);
    } finally {
      await store.close();
      await later.stop();
    }
  });

  it('Redis hung (no answer): the first decision waits the command timeout, the next ones fail fast (breaker open; issue 41, item 8): quotas count locally, throttles refuse; closed again once Redis answers', async () => {
    const clock = new ManualClock();
    const states: boolean[] = [];
    let reopened: () => void = () => undefined;
    const answering = new Promise<void>((resolve) => (reopened = resolve));
    const store = await redisStore(clock, {
      onBreaker: (open) => {
        states.push(open);
        if (!open) reopened();
      },
    });
    const quota = store.rollingWindow('hung-quota', window(clock, 5, 'count-locally'));
    const throttle = store.rollingWindow('hung-throttle', window(clock, 5, 'refuse'));
    const lock = store.failureLock('hung-lock', lockOptions, clock);
    server.pause();
    try {
      let started = Date.now();
      expect((await quota.tryAcquire('a')).allowed).toBe(true); // counted locally, after the 500 ms timeout
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(states).toEqual([true]);
      started = Date.now();
      for (let i = 0; i < 4; i++) {
        expect((await quota.tryAcquire('a')).allowed).toBe(true); // the local window's budget of 5
        expect(await throttle.checkThenRecord('k')).toMatchObject({ allowed: false, retryAfterMs: 5000 });
        expect(await lock.reserve('e')).toEqual({ allowed: false, unavailable: true });
      }
      expect((await quota.tryAcquire('a')).allowed).toBe(false);
      // 13 decisions: before the breaker, 13 × 500 ms; now none waits for Redis.
      expect(Date.now() - started).toBeLessThan(400);
    } finally {
      server.resume();
    }
    await answering; // the breaker's own probe finds Redis answering again
    expect(states).toEqual([true, false]);
    expect((await lock.reserve('e')).allowed).toBe(true);
    expect((await throttle.checkThenRecord('k')).allowed).toBe(true);
  });

  it('stores no e-mail, address or client id: keys are hashes', async () => {
    const clock = new ManualClock();
    const store = await redisStore(clock);
    const email = 'someone.private@example.com';
    const lock = store.failureLock('sign-in-email', lockOptions, clock);
    const r = await lock.reserve(email);
    if (r.allowed) await lock.failed(email, r.ticket);
    await store.rollingWindow('client-auth-failures', window(clock, 3, 'refuse')).checkThenRecord('client:abc-123');
    const raw = new Redis(server.url);
    const keys = await raw.keys('*');
    await raw.quit();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toMatch(/someone|example|abc-123/);
  });

  it('Redis gone: quotas count per instance, security throttles refuse (fail closed), errors reported; back when Redis returns', async () => {
    const clock = new ManualClock();
    const errors: string[] = [];
    const store = await redisStore(clock, { onError: (counter) => errors.push(counter) });
    const quota = store.rollingWindow('quota', window(clock, 2, 'count-locally'));
    const throttle = store.rollingWindow('throttle', window(clock, 2, 'refuse'));
    const lock = store.failureLock('sign-in', lockOptions, clock);
    expect((await quota.tryAcquire('a')).allowed).toBe(true);

    const port = server.port;
    await server.stop();
    const started = Date.now();
    // The local fallback has its own budget of 2 (per instance), then refuses.
    expect((await quota.tryAcquire('a')).allowed).toBe(true);
    expect((await quota.tryAcquire('a')).allowed).toBe(true);
    expect((await quota.tryAcquire('a')).allowed).toBe(false);
    expect(await throttle.checkThenRecord('k')).toMatchObject({ allowed: false, retryAfterMs: 5000 });
    expect(await lock.reserve('e')).toEqual({ allowed: false, unavailable: true });
    expect(Date.now() - started).toBeLessThan(5000); // fails fast, never hangs a request
    expect(new Set(errors)).toEqual(new Set(['quota', 'throttle', 'sign-in']));

    await server.start(port);
    expect(await store.connect(10_000)).toBe(true);
    expect((await lock.reserve('e')).allowed).toBe(true);
    expect((await throttle.checkThenRecord('k')).allowed).toBe(true);
  });
});
