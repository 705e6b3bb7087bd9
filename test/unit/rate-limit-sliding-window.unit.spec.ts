import fc from 'fast-check';
import { ManualClock } from '../support/manual-clock';
import {
  clientAuthenticationThrottled,
  rateLimitHeaders,
  retryAfterSeconds,
  tenSecondlyRollingExceeded,
} from '../../src/platform/rate-limit/rate-limit-responses';
import { SlidingWindowLog } from '../../src/platform/rate-limit/sliding-window-log';
import { loadConfig } from '../../src/platform/config/config';
import { toErrorBody } from '../../src/platform/errors/hubspot-error';

describe('SlidingWindowLog (rolling window, injected clock)', () => {
  const make = (max = 3, windowMs = 10_000, maxKeys?: number) => {
    const clock = new ManualClock(1_000_000);
    return { clock, log: new SlidingWindowLog({ max, windowMs, ...(maxKeys ? { maxKeys } : {}) }, clock) };
  };

  it('allows max per window, counts remaining down, refuses the next with the time until room', () => {
    const { clock, log } = make(3, 10_000);
    expect(log.tryAcquire('a')).toEqual({ allowed: true, limit: 3, remaining: 2, windowMs: 10_000, retryAfterMs: 0 });
    clock.advance(1000);
    expect(log.tryAcquire('a').remaining).toBe(1);
    clock.advance(1000);
    expect(log.tryAcquire('a').remaining).toBe(0);
    clock.advance(500);
    // the first hit (t=0) leaves the window at t=10000; now is t=2500
    expect(log.tryAcquire('a')).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      windowMs: 10_000,
      retryAfterMs: 7500,
    });
  });

  it('rolls: room comes back one hit at a time, exactly when each hit is windowMs old', () => {
    const { clock, log } = make(2, 10_000);
    log.tryAcquire('a'); // t=0
    clock.advance(4000);
    log.tryAcquire('a'); // t=4000
    clock.advance(5999); // t=9999
    expect(log.tryAcquire('a').allowed).toBe(false);
    clock.advance(1); // t=10000: the first hit leaves
    expect(log.tryAcquire('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(log.tryAcquire('a')).toMatchObject({ allowed: false, retryAfterMs: 4000 }); // t=4000 hit leaves at 14000
  });

  it('a fixed window would allow a burst of 2×max across its boundary; the rolling one does not', () => {
    const { clock, log } = make(5, 10_000);
    clock.advance(9_000);
    for (let i = 0; i < 5; i++) expect(log.tryAcquire('a').allowed).toBe(true);
    clock.advance(2_000); // a fixed window would have reset at 10 000
    expect(log.tryAcquire('a').allowed).toBe(false);
  });

  it('refused attempts are not counted: a client that keeps retrying gets room back after one window', () => {
    const { clock, log } = make(1, 1000);
    expect(log.tryAcquire('a').allowed).toBe(true);
    for (let i = 0; i < 50; i++) {
      clock.advance(10);
      expect(log.tryAcquire('a').allowed).toBe(false);
    }
    clock.advance(500); // t=1000
    expect(log.tryAcquire('a').allowed).toBe(true);
  });

  it('keys are independent', () => {
    const { log } = make(1);
    expect(log.tryAcquire('publicapp:1:10').allowed).toBe(true);
    expect(log.tryAcquire('publicapp:1:10').allowed).toBe(false);
    expect(log.tryAcquire('publicapp:1:11').allowed).toBe(true);
    expect(log.tryAcquire('publicapp:2:10').allowed).toBe(true);
  });

  it('record() counts failures unconditionally; check() decides without counting', () => {
    const { clock, log } = make(3, 60_000);
    expect(log.check('c')).toMatchObject({ allowed: true, remaining: 3 });
    for (let i = 0; i < 3; i++) {
      log.record('c');
      clock.advance(1000);
    }
    expect(log.check('c')).toMatchObject({ allowed: false, retryAfterMs: 57_000 });
    expect(log.check('c')).toMatchObject({ allowed: false, retryAfterMs: 57_000 }); // check did not count
    // failures while over the limit keep it closed: only the newest `max` are kept
    for (let i = 0; i < 100; i++) log.record('c');
    expect(log.check('c')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    clock.advance(60_000);
    expect(log.check('c')).toMatchObject({ allowed: true, remaining: 3 });
  });

  it('forgets idle keys after a window and bounds the number of keys', () => {
    const { clock, log } = make(2, 1000, 100);
    for (let i = 0; i < 50; i++) log.tryAcquire(`k${i}`);
    expect(log.size).toBe(50);
    clock.advance(1000);
    log.tryAcquire('fresh');
    expect(log.size).toBe(1);
    for (let i = 0; i < 1000; i++) log.tryAcquire(`many${i}`);
    expect(log.size).toBe(100);
    // the most recently used keys are the ones kept
    expect(log.check('many999').remaining).toBe(1);
    expect(log.check('many0').remaining).toBe(2);
  });

  it('finding 10: with 100k live keys, one more key visits O(1) entries (no sweep) and the key count stays bounded', () => {
    const { clock, log } = make(10, 60_000);
    for (let i = 0; i < 100_000; i++) log.record(`address:${i}`);
    expect(log.size).toBe(100_000);
    clock.advance(1000); // every key still has an occurrence in the window: nothing to expire
    // Count the Map entries any iterator hands out while one more key arrives.
    let visited = 0;
    const iterate = Map.prototype[Symbol.iterator];
    const keys = Map.prototype.keys;
    const values = Map.prototype.values;
    const counting = <T>(original: (this: Map<unknown, unknown>) => IterableIterator<T>) =>
      function (this: Map<unknown, unknown>): IterableIterator<T> {
        const it = original.call(this);
        const next = it.next.bind(it);
        it.next = () => {
          visited++;
          return next();
        };
        return it;
      };
    Map.prototype[Symbol.iterator] = counting(iterate) as never;
    Map.prototype.entries = Map.prototype[Symbol.iterator];
    Map.prototype.keys = counting(keys) as never;
    Map.prototype.values = counting(values) as never;
    try {
      log.record('address:attacker-100001');
      log.check('client:attacker-100002');
    } finally {
      Map.prototype[Symbol.iterator] = iterate;
      Map.prototype.entries = iterate as never;
      Map.prototype.keys = keys;
      Map.prototype.values = values;
    }
    expect(visited).toBeLessThanOrEqual(4);
    expect(log.size).toBe(100_000); // the least recently used key made room
    expect(log.check('address:0').remaining).toBe(10); // ...and it was the oldest one
    expect(log.check('address:1').remaining).toBe(9);
  });

  it('drops the keys whose occurrences all left the window from the front, a few per operation', () => {
    const { clock, log } = make(2, 1000);
    for (let i = 0; i < 500; i++) log.record(`old${i}`);
    clock.advance(500);
    for (let i = 0; i < 10; i++) log.record(`new${i}`);
    clock.advance(600); // old* are out of the window, new* are not
    log.check('anything');
    expect(log.size).toBe(10);
    expect(log.check('new0').remaining).toBe(1);
  });

  it('never promises a wait longer than one window, even when the clock was set back', () => {
    const { clock, log } = make(1, 1000);
    log.tryAcquire('a');
    clock.advance(-5000);
    expect(log.tryAcquire('a')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
  });

  it('agrees with a naive model on random schedules (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 30 }), key: fc.constantFrom('a', 'b', 'c') }), {
          maxLength: 300,
        }),
        (max, windowMs, steps) => {
          const clock = new ManualClock(0);
          const log = new SlidingWindowLog({ max, windowMs }, clock);
          const model = new Map<string, number[]>();
          for (const { dt, key } of steps) {
            clock.advance(dt);
            const now = clock.now();
            const inWindow = (model.get(key) ?? []).filter((t) => t > now - windowMs);
            const d = log.tryAcquire(key);
            const expectAllowed = inWindow.length < max;
            if (d.allowed !== expectAllowed) return false;
            if (expectAllowed) {
              inWindow.push(now);
              if (d.remaining !== max - inWindow.length) return false;
            } else if (d.retryAfterMs !== inWindow[0]! + windowMs - now) {
              return false;
            }
            model.set(key, inWindow);
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('rate-limit responses', () => {
  const refused = { allowed: false, limit: 110, remaining: 0, windowMs: 10_000, retryAfterMs: 2_345 };

  it("HubSpot's TEN_SECONDLY_ROLLING body and headers", () => {
    const e = tenSecondlyRollingExceeded('publicapp:7:42', refused);
    expect(e.httpStatus).toBe(429);
    expect(toErrorBody(e, 'c0ffee00-0000-4000-8000-000000000000')).toEqual({
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      correlationId: 'c0ffee00-0000-4000-8000-000000000000',
      policyName: 'TEN_SECONDLY_ROLLING',
      groupName: 'publicapp:7:42',
      category: 'RATE_LIMITS',
    });
    expect(e.extras.headers).toEqual({
      'X-HubSpot-RateLimit-Interval-Milliseconds': '10000',
      'X-HubSpot-RateLimit-Max': '110',
      'X-HubSpot-RateLimit-Remaining': '0',
      'Retry-After': '3',
    });
  });

  it('Retry-After is whole seconds, rounded up, at least 1', () => {
    expect(retryAfterSeconds({ ...refused, retryAfterMs: 1 })).toBe('1');
    expect(retryAfterSeconds({ ...refused, retryAfterMs: 1000 })).toBe('1');
    expect(retryAfterSeconds({ ...refused, retryAfterMs: 1001 })).toBe('2');
    expect(rateLimitHeaders({ ...refused, allowed: true, remaining: 17 })['X-HubSpot-RateLimit-Remaining']).toBe('17');
  });

  it('the failed-authentication 429 keeps the OAuth error fields and no-store', () => {
    const e = clientAuthenticationThrottled({ ...refused, windowMs: 60_000, limit: 10, retryAfterMs: 59_001 });
    const body = toErrorBody(e, 'id');
    expect(body).toMatchObject({
      status: 'error',
      category: 'RATE_LIMITS',
      errorType: 'RATE_LIMIT',
      policyName: 'CLIENT_AUTHENTICATION_FAILURES',
      error: 'invalid_client',
      message: 'Too many failed client authentications; retry after 60 seconds.',
    });
    expect(body.error_description).toBe(body.message);
    expect(e.extras.headers).toMatchObject({ 'Retry-After': '60', 'cache-control': 'no-store' });
  });
});

describe('rate-limit configuration', () => {
  it("defaults to HubSpot's public-app limit and 10 failed client authentications a minute", () => {
    expect(loadConfig({}).rateLimit).toEqual({
      enabled: true,
      windowMs: 10_000,
      max: 110,
      clientAuthFailures: { windowMs: 60_000, max: 10 },
      tokenRequests: { windowMs: 10_000, max: 110 },
      developerApiKeyRequests: { windowMs: 10_000, max: 100 },
    });
  });

  it('reads every setting and refuses bad values', () => {
    const c = loadConfig({
      RATE_LIMIT_ENABLED: 'false',
      RATE_LIMIT_WINDOW_MS: '200',
      RATE_LIMIT_MAX: '5',
      CLIENT_AUTH_FAILURE_WINDOW_MS: '30000',
      CLIENT_AUTH_FAILURE_MAX: '3',
    });
    expect(c.rateLimit).toEqual({
      enabled: false,
      windowMs: 200,
      max: 5,
      clientAuthFailures: { windowMs: 30_000, max: 3 },
      // the token endpoint's limit follows the public-app limit unless set on its own
      tokenRequests: { windowMs: 200, max: 5 },
      // developer-key calls share the window; their own count
      developerApiKeyRequests: { windowMs: 200, max: 100 },
    });
    expect(
      loadConfig({ TOKEN_RATE_LIMIT_WINDOW_MS: '1000', TOKEN_RATE_LIMIT_MAX: '7' }).rateLimit.tokenRequests,
    ).toEqual({
      windowMs: 1000,
      max: 7,
    });
    expect(() => loadConfig({ TOKEN_RATE_LIMIT_MAX: '0' })).toThrow(/TOKEN_RATE_LIMIT_MAX must be an integer/);
    expect(() => loadConfig({ RATE_LIMIT_MAX: '0' })).toThrow(/RATE_LIMIT_MAX must be an integer/);
    expect(() => loadConfig({ CLIENT_AUTH_FAILURE_MAX: 'ten' })).toThrow(/CLIENT_AUTH_FAILURE_MAX must be an integer/);
    expect(() => loadConfig({ RATE_LIMIT_ENABLED: 'maybe' })).toThrow(/RATE_LIMIT_ENABLED must be true or false/);
  });
});
