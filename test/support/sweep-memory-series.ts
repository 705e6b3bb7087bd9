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
}

export const MEMORY_SERIES: MemorySeries[] = [
  { name: 'heap used', of: (m) => m.heapUsed, maxBytesPerRequest: 512 },
  { name: 'external', of: (m) => m.external, maxBytesPerRequest: 2048 },
  { name: 'outside V8 heap', of: (m) => m.rss - m.heapResident, maxBytesPerRequest: 1024 },
  { name: 'rss', of: (m) => m.rss },
  { name: 'array buffers', of: (m) => m.arrayBuffers },
  { name: 'V8 heap resident', of: (m) => m.heapResident },
  { name: 'V8 heap total', of: (m) => m.heapTotal },
  { name: 'V8 new space', of: (m) => m.newSpace },
];
