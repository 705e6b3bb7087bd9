import { leakVerdict, type TrendVerdict } from './memory-trend';
import type { MemoryAfterGc } from './reliability-service';

/**
 * The memory series the bad-input sweep prints, and the leak bound (bytes per request) of those it
 * checks. A series leaks when it grows faster than its bound in every one of LEAK_WINDOWS windows
 * (2,000 requests each by default; see memory-trend.ts): growth that does not level off. Together
 * the three checked series hold everything a leak can hold: live JS objects (heap used), Buffers and
 * other C++ memory tied to JS objects (external), and native memory (RSS outside V8's heap: SQLite,
 * the allocator, Buffers' backing stores again). RSS itself is printed, not checked: it also holds
 * the free part of V8's heap, which grows in steps when V8 doubles its young generation
 * (32 → 64 → 128 MB, at a moment that varies from run to run) and then levels off.
 *
 * Shared with leak-check-self-test.spec.ts, which shows that these bounds catch a real leak.
 */
export const LEAK_WINDOWS = 3;

/**
 * Samples left out of the fit at the start of the series (still printed). The first interval after
 * the warm-up falls in every run, the same amount (heap used about 0.6 MB over 500 requests: what the
 * warm-up's last requests left behind being collected), and a fall there lowers the first window's
 * slope. With the verdict taken on the flattest window, that fall used to let a heap leak of up to
 * about 760 B per request pass a 512 B bound.
 */
export const SETTLE_SAMPLES = 1;

export interface MemorySeries {
  name: string;
  of: (m: MemoryAfterGc) => number;
  maxBytesPerRequest?: number;
  /**
   * A series whose growth counts only when this other series grows past the same bound too. "Outside
   * V8 heap" is RSS minus V8's resident heap: when V8 gives heap pages back that the process still
   * holds in RSS (after-GC samples swing ±8 MB this way), the difference rises while RSS stays flat.
   * Native memory that leaks raises RSS itself, so a rise of "outside" without RSS is that noise
   * (CI, 2026-11-27: RSS flat at 374 MB over 6,000 requests, "outside" swinging 148–162 MB).
   */
  confirmedBy?: string;
}

export const MEMORY_SERIES: MemorySeries[] = [
  { name: 'heap used', of: (m) => m.heapUsed, maxBytesPerRequest: 512 },
  { name: 'external', of: (m) => m.external, maxBytesPerRequest: 2048 },
  { name: 'outside V8 heap', of: (m) => m.rss - m.heapResident, maxBytesPerRequest: 1024, confirmedBy: 'rss' },
  { name: 'rss', of: (m) => m.rss },
  { name: 'array buffers', of: (m) => m.arrayBuffers },
  { name: 'V8 heap resident', of: (m) => m.heapResident },
  { name: 'V8 heap total', of: (m) => m.heapTotal },
  { name: 'V8 new space', of: (m) => m.newSpace },
];

export interface SeriesVerdict extends TrendVerdict {
  name: string;
  maxBytesPerRequest: number;
  /** The confirming series' sustained slope, when the series has one. */
  confirmingSlope?: number;
}

/** The verdict on every checked series of a sweep's samples (the settling samples left out). */
export function memoryVerdicts(samples: ReadonlyArray<{ requests: number; memory: MemoryAfterGc }>): SeriesVerdict[] {
  const fitted = samples.slice(SETTLE_SAMPLES);
  const verdictOf = (m: MemorySeries, bound: number) =>
    leakVerdict(
      fitted.map((x) => ({ requests: x.requests, bytes: m.of(x.memory) })),
      { maxBytesPerRequest: bound, windows: LEAK_WINDOWS },
    );
  return MEMORY_SERIES.filter((m) => m.maxBytesPerRequest !== undefined).map((m) => {
    const bound = m.maxBytesPerRequest!;
    const own = verdictOf(m, bound);
    if (m.confirmedBy === undefined) return { name: m.name, maxBytesPerRequest: bound, ...own };
    const confirming = MEMORY_SERIES.find((c) => c.name === m.confirmedBy);
    if (!confirming) throw new Error(`${m.name} is confirmed by an unknown series ${m.confirmedBy}`);
    const other = verdictOf(confirming, bound);
    return {
      name: m.name,
      maxBytesPerRequest: bound,
      ...own,
      confirmingSlope: other.sustainedSlope,
      leaks: own.leaks && other.leaks,
    };
  });
}
