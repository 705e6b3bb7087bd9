import { LimitsReadCache, type AccountLimitFigures } from '../../src/crm-schema/application/limits-read-cache';

/** A read of the read model that counts how often it ran and answers what `rows` hold now. */
function readModel(rows: Map<number, AccountLimitFigures>) {
  const reads: number[] = [];
  return {
    reads,
    read: (hubId: number) => () => {
      reads.push(hubId);
      return rows.get(hubId) ?? { overrides: {}, customObjectTypes: 0 };
    },
  };
}

describe('LimitsReadCache', () => {
  it('reads an account once, then answers from memory until the account is forgotten', () => {
    const rows = new Map<number, AccountLimitFigures>([
      [7, { overrides: { customObjectTypes: 3 }, customObjectTypes: 1 }],
    ]);
    const { reads, read } = readModel(rows);
    const cache = new LimitsReadCache(10);
    expect(cache.figures(7, read(7))).toEqual({ overrides: { customObjectTypes: 3 }, customObjectTypes: 1 });
    rows.set(7, { overrides: {}, customObjectTypes: 2 });
    expect(cache.figures(7, read(7)).customObjectTypes).toBe(1);
    expect(reads).toEqual([7]);
    cache.forget(7);
    expect(cache.figures(7, read(7))).toEqual({ overrides: {}, customObjectTypes: 2 });
    expect(reads).toEqual([7, 7]);
  });

  it('forgets only the account named; clear forgets every account', () => {
    const { reads, read } = readModel(new Map());
    const cache = new LimitsReadCache(10);
    for (const hub of [1, 2, 3]) cache.figures(hub, read(hub));
    cache.forget(2);
    for (const hub of [1, 2, 3]) cache.figures(hub, read(hub));
    expect(reads).toEqual([1, 2, 3, 2]);
    cache.clear();
    expect(cache.size).toBe(0);
    cache.figures(1, read(1));
    expect(reads).toEqual([1, 2, 3, 2, 1]);
  });

  it('holds at most its capacity, the oldest entry going first', () => {
    const { reads, read } = readModel(new Map());
    const cache = new LimitsReadCache(3);
    for (let hub = 1; hub <= 1000; hub++) {
      cache.figures(hub, read(hub));
      expect(cache.size).toBe(Math.min(hub, 3));
    }
    reads.length = 0;
    for (const hub of [998, 999, 1000]) cache.figures(hub, read(hub));
    expect(reads).toEqual([]);
    cache.figures(997, read(997)); // gone: read again, and 998 (the oldest) leaves
    cache.figures(998, read(998));
    expect(reads).toEqual([997, 998]);
    expect(cache.size).toBe(3);
  });

  it('keeps frozen copies: a caller cannot change what the next one reads', () => {
    const overrides = { calculatedProperties: 5 };
    const cache = new LimitsReadCache(2);
    const kept = cache.figures(1, () => ({ overrides, customObjectTypes: 0 }));
    overrides.calculatedProperties = 6;
    expect(kept.overrides).toEqual({ calculatedProperties: 5 });
    expect(Object.isFrozen(kept) && Object.isFrozen(kept.overrides)).toBe(true);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LimitsReadCache(0)).toThrow(/positive integer/);
    expect(() => new LimitsReadCache(1.5)).toThrow(/positive integer/);
  });
});
