import fc from 'fast-check';
import { leakVerdict, slope, type TrendPoint } from '../support/memory-trend';

const MB = 2 ** 20;

/** Samples every `every` requests from 0 to `requests`, memory given by `bytes(requests)`. */
function series(requests: number, every: number, bytes: (requests: number) => number): TrendPoint[] {
  const out: TrendPoint[] = [];
  for (let r = 0; r <= requests; r += every) out.push({ requests: r, bytes: bytes(r) });
  return out;
}

/** Deterministic noise in [-amplitude, amplitude] (a fixed-seed LCG: same numbers every run). */
function noise(amplitude: number, seed = 7): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return (s / 2 ** 31) * 2 * amplitude - amplitude;
  };
}

describe('memory trend: leak detection', () => {
  it('fits the least-squares slope', () => {
    expect(slope(series(6000, 500, (r) => 100 * MB + 3 * r))).toBeCloseTo(3, 9);
    expect(
      slope([
        { requests: 0, bytes: 10 },
        { requests: 10, bytes: 0 },
      ]),
    ).toBeCloseTo(-1, 9);
  });

  it("passes the issue's series: flat, then RSS jumps by 23 MB in the last thousand requests", () => {
    // RSS after GC, MB: 217 after warm-up, then every 1000 requests 219 219 219 220 220 243.
    const rss = [217, 219, 219, 219, 220, 220, 243].map((mb, i) => ({ requests: i * 1000, bytes: mb * MB }));
    const v = leakVerdict(rss, { maxBytesPerRequest: 1024 });
    expect(v.leaks).toBe(false);
    expect(v.windowSlopes).toHaveLength(3);
    expect(v.windowSlopes[2]).toBeGreaterThan(10_000); // the jump is there, in one window
    expect(v.sustainedSlope).toBeLessThan(1024);
  });

  it('passes a flat series with one step anywhere, also one spread over two intervals', () => {
    for (let at = 500; at <= 6000; at += 500) {
      const step = series(6000, 500, (r) => 200 * MB + (r >= at ? 64 * MB : 0));
      expect({ at, leaks: leakVerdict(step, { maxBytesPerRequest: 1024 }).leaks }).toEqual({ at, leaks: false });
      // V8's new pages become resident over the next samples: half the step, then the rest.
      const spread = series(6000, 500, (r) => 200 * MB + (r >= at ? 32 * MB : 0) + (r >= at + 500 ? 32 * MB : 0));
      expect({ at, leaks: leakVerdict(spread, { maxBytesPerRequest: 1024 }).leaks }).toEqual({ at, leaks: false });
    }
  });

  it('passes growth that levels off (a cache filling up to its bound) and noise around a flat line', () => {
    const filling = series(6000, 500, (r) => 100 * MB + Math.min(r, 1500) * 4096);
    expect(leakVerdict(filling, { maxBytesPerRequest: 1024 }).leaks).toBe(false);
    const n = noise(1.5 * MB);
    const flat = series(6000, 500, () => 5 * MB + n());
    expect(leakVerdict(flat, { maxBytesPerRequest: 2048 }).leaks).toBe(false);
  });

  it('fails steady linear growth, also with noise and with a step on top', () => {
    const steady = series(6000, 500, (r) => 45 * MB + 1024 * r);
    const v = leakVerdict(steady, { maxBytesPerRequest: 512 });
    expect(v.leaks).toBe(true);
    expect(v.windowSlopes.map(Math.round)).toEqual([1024, 1024, 1024]);

    const n = noise(0.5 * MB);
    const noisy = series(6000, 500, (r) => 45 * MB + 1024 * r + n());
    expect(leakVerdict(noisy, { maxBytesPerRequest: 512 }).leaks).toBe(true);

    const stepped = series(6000, 500, (r) => 200 * MB + 4096 * r + (r >= 5500 ? 64 * MB : 0));
    expect(leakVerdict(stepped, { maxBytesPerRequest: 2048 }).leaks).toBe(true);
  });

  it('passes growth under the bound', () => {
    const slow = series(6000, 500, (r) => 45 * MB + 100 * r);
    expect(leakVerdict(slow, { maxBytesPerRequest: 512 })).toEqual(
      expect.objectContaining({ leaks: false, sustainedSlope: expect.closeTo(100, 6) }),
    );
  });

  it('property: one step of any size anywhere never leaks; linear growth above the bound always does', () => {
    const bound = 1024;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 512 }),
        fc.integer({ min: 0, max: 256 * 1024 }),
        (stepAt, stepMb, noiseBytes) => {
          const n = noise(noiseBytes, stepAt + 1);
          const points = series(6000, 500, (r) => 200 * MB + (r >= stepAt * 500 ? stepMb * MB : 0) + n());
          return !leakVerdict(points, { maxBytesPerRequest: bound }).leaks;
        },
      ),
      { seed: 42, numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 2 * bound, max: 100 * bound }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 512 }),
        fc.integer({ min: 0, max: 256 * 1024 }),
        (perRequest, stepAt, stepMb, noiseBytes) => {
          const n = noise(noiseBytes, stepAt + 1);
          const points = series(
            6000,
            500,
            (r) => 200 * MB + perRequest * r + (r >= stepAt * 500 ? stepMb * MB : 0) + n(),
          );
          return leakVerdict(points, { maxBytesPerRequest: bound }).leaks;
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it('refuses series it cannot judge', () => {
    const few = series(2000, 500, () => 0); // 4 intervals: not two per window
    expect(() => leakVerdict(few, { maxBytesPerRequest: 1 })).toThrow(/too few/);
    expect(() =>
      leakVerdict(
        series(6000, 500, () => 0),
        { maxBytesPerRequest: 1, windows: 1 },
      ),
    ).toThrow(/two windows/);
    const unordered = series(6000, 500, () => 0).reverse();
    expect(() => leakVerdict(unordered, { maxBytesPerRequest: 1 })).toThrow(/request order/);
  });
});
