import { FailureBackoff } from '../../src/platform/rate-limit/failure-backoff';
import { ManualClock } from '../support/manual-clock';

const options = { free: 2, baseLockMs: 1000, maxLockMs: 4000, forgetAfterMs: 10_000, resetOnSuccess: true };

describe('FailureBackoff (sign-in throttle)', () => {
  it('counts reserved attempts until they settle: parallel attempts get no more than the free budget', () => {
    const b = new FailureBackoff(options, new ManualClock());
    expect(b.reserve('k')).toEqual({ allowed: true });
    expect(b.reserve('k')).toEqual({ allowed: true });
    expect(b.reserve('k')).toEqual({ allowed: false, retryAfterMs: 1000 });
    b.succeeded('k'); // one settles well: its place is free again
    expect(b.reserve('k')).toEqual({ allowed: true });
  });

  it('locks after the free failures with a doubling, bounded lock; a quiet period forgets', () => {
    const clock = new ManualClock();
    const b = new FailureBackoff(options, clock);
    const fail = () => {
      expect(b.reserve('k').allowed).toBe(true);
      b.failed('k');
    };
    fail();
    fail();
    const locks = [];
    for (let i = 0; i < 4; i++) {
      const refused = b.reserve('k');
      expect(refused.allowed).toBe(false);
      locks.push((refused as { retryAfterMs: number }).retryAfterMs);
      clock.advance(locks.at(-1)!);
      fail();
    }
    expect(locks).toEqual([1000, 2000, 4000, 4000]);
    clock.advance(4000 + options.forgetAfterMs);
    fail(); // counted from zero again: no lock yet
    expect(b.reserve('k').allowed).toBe(true);
  });

  it('keeps at most maxKeys keys and drops idle ones', () => {
    const clock = new ManualClock();
    const b = new FailureBackoff({ ...options, maxKeys: 100 }, clock);
    for (let i = 0; i < 1000; i++) {
      b.reserve(`k${i}`);
      b.failed(`k${i}`);
    }
    expect(b.size).toBe(100);
    clock.advance(options.forgetAfterMs);
    b.reserve('fresh');
    expect(b.size).toBe(1);
  });
});
