import type { MemoryAfterGc } from '../support/reliability-service';
import { memoryVerdicts } from '../support/sweep-memory-series';

const MB = 2 ** 20;

/** Samples every 500 requests from 0, with RSS and V8's resident heap (MB) given; the rest flat. */
function samples(rssMb: number[], heapResidentMb: number[]) {
  return rssMb.map((rss, i) => {
    const memory: MemoryAfterGc = {
      rss: rss * MB,
      heapUsed: 75 * MB,
      heapTotal: heapResidentMb[i]! * MB,
      heapResident: heapResidentMb[i]! * MB,
      newSpace: 128 * MB,
      newSpaceResident: 128 * MB,
      external: 8 * MB,
      arrayBuffers: 0.4 * MB,
    };
    return { requests: i * 500, memory };
  });
}

const verdictOf = (s: ReturnType<typeof samples>, name: string) => memoryVerdicts(s).find((v) => v.name === name)!;

describe("the bad-input sweep's memory verdicts", () => {
  it("passes CI's series of 2026-11-27: RSS flat, V8's resident heap swinging, so 'outside V8 heap' swings the other way", () => {
    const rss = [363.5, 362.2, 373.6, 373.9, 373.9, 374.0, 374.3, 374.3, 374.3, 374.4, 374.1, 371.9, 371.9];
    const heap = [217.8, 211.8, 217.8, 220.6, 212.3, 221.3, 226.3, 213.1, 222.6, 224.1, 212.8, 210.6, 210.3];
    const outside = verdictOf(samples(rss, heap), 'outside V8 heap');
    // On its own the difference rises in every window (CI called it a leak) ...
    expect(outside.sustainedSlope).toBeGreaterThan(outside.maxBytesPerRequest);
    // ... but RSS does not, and native memory that leaks is in RSS.
    expect(outside.confirmingSlope).toBeLessThan(outside.maxBytesPerRequest);
    expect(outside.leaks).toBe(false);
  });

  it("still calls a native leak a leak: 'outside V8 heap' and RSS rising 4 KB a request, the heap flat", () => {
    const rss = Array.from({ length: 13 }, (_, i) => 360 + (i * 500 * 4096) / MB);
    const heap = Array.from({ length: 13 }, () => 215);
    const outside = verdictOf(samples(rss, heap), 'outside V8 heap');
    expect(outside.leaks).toBe(true);
    expect(outside.confirmingSlope).toBeCloseTo(4096, 0);
  });

  it('a rise of RSS alone (the heap growing, outside flat) is not a native leak', () => {
    const grow = Array.from({ length: 13 }, (_, i) => (i * 500 * 4096) / MB);
    const outside = verdictOf(
      samples(
        grow.map((g) => 360 + g),
        grow.map((g) => 215 + g),
      ),
      'outside V8 heap',
    );
    expect(outside.leaks).toBe(false);
  });
});
