import {
  type LeaseSeen,
  leaseStep,
  observe,
  leaseReleased,
  leaseTaken,
} from '../../src/app-webhooks/domain/dispatch-lease';

const timing = { leaseMs: 5000, timeoutMs: 10_000 };
const othersLease = (seenAt: number, released = false): LeaseSeen => ({
  revision: 7,
  owner: released ? null : 'other',
  released,
  leaseMs: 5000,
  seenAt,
});

describe('dispatch lease decisions (several instances on one store)', () => {
  it('takes an app nobody ever held at no_stream, and only when it has work', () => {
    expect(leaseStep({ held: null, seen: undefined, busy: true, now: 0, timing })).toEqual({
      kind: 'take',
      expected: 'no_stream',
    });
    expect(leaseStep({ held: null, seen: undefined, busy: false, now: 0, timing })).toEqual({ kind: 'wait' });
  });

  it("waits out another owner's lease plus the request timeout, on its own clock, then takes at the seen revision", () => {
    const seen = othersLease(1000);
    expect(leaseStep({ held: null, seen, busy: true, now: 1000 + 14_999, timing }).kind).toBe('wait');
    expect(leaseStep({ held: null, seen, busy: true, now: 1000 + 15_000, timing })).toEqual({
      kind: 'take',
      expected: 7,
    });
  });

  it('takes a released lease at once', () => {
    expect(leaseStep({ held: null, seen: othersLease(1000, true), busy: true, now: 1001, timing })).toEqual({
      kind: 'take',
      expected: 7,
    });
  });

  it('the holder sends within the first third, then renews at its revision, and releases after half a lease idle', () => {
    const held = { revision: 3, renewStartedAt: 100 };
    expect(leaseStep({ held, seen: undefined, busy: true, now: 100 + 1666, timing })).toEqual({ kind: 'send' });
    expect(leaseStep({ held, seen: undefined, busy: true, now: 100 + 1667, timing })).toEqual({
      kind: 'renew',
      expected: 3,
    });
    // Late (a stalled process): still a renewal at its own revision, which fails if anyone took over.
    expect(leaseStep({ held, seen: undefined, busy: true, now: 100 + 60_000, timing })).toEqual({
      kind: 'renew',
      expected: 3,
    });
    expect(leaseStep({ held, seen: undefined, busy: false, now: 100 + 2499, timing })).toEqual({ kind: 'wait' });
    expect(leaseStep({ held, seen: undefined, busy: false, now: 100 + 2500, timing })).toEqual({
      kind: 'release',
      expected: 3,
    });
  });

  it('observing: a newer revision restarts the wait; an older one (a lagging feed) changes nothing', () => {
    const taken = leaseTaken(1, 'a', 5000, 0);
    const first = observe(undefined, taken, 4, 100)!;
    expect(first).toEqual({ revision: 4, owner: 'a', released: false, leaseMs: 5000, seenAt: 100 });
    expect(observe(first, leaseTaken(1, 'b', 5000, 0), 3, 900)).toBe(first);
    expect(observe(first, taken, 4, 900)).toBe(first);
    expect(observe(first, leaseReleased(1, 'a', 0), 5, 900)).toEqual({
      revision: 5,
      owner: null,
      released: true,
      leaseMs: 5000,
      seenAt: 900,
    });
    // Learnt from a refused append (owner unknown): the feed's event at that revision names the owner.
    const learnt: LeaseSeen = { revision: 4, owner: null, released: false, leaseMs: 5000, seenAt: 50 };
    expect(observe(learnt, taken, 4, 100)).toEqual(first);
  });
});
