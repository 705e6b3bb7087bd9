/**
 * Leak detection over a memory series (pure: no I/O, no clock), for the bad-input sweep.
 *
 * A leak is growth that does not level off: memory that keeps rising with every request. A
 * one-off step is not a leak: V8 doubling its young generation once the allocation rate calls for
 * it (up to its maximum), the allocator keeping a new arena, a cache filling up to its bound. Such
 * a step falls between two samples, so it lands in one window of the series. A leak raises every
 * window. The verdict is therefore taken on the flattest window: the series leaks when even its
 * flattest window grows faster than the bound.
 */

/** One sample: memory (bytes) after `requests` requests. */
export interface TrendPoint {
  requests: number;
  bytes: number;
}

export interface TrendVerdict {
  /** Least-squares growth in bytes per request of each window, in order. */
  windowSlopes: number[];
  /** The smallest window slope: how fast the series grows where it grows least. */
  sustainedSlope: number;
  /** `sustainedSlope` above the bound: growth in every window, i.e. growth that does not level off. */
  leaks: boolean;
}

/** Least-squares slope of `bytes` over `requests`. */
export function slope(points: readonly TrendPoint[]): number {
  if (points.length < 2) throw new Error('a slope needs at least two points');
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.requests, 0) / n;
  const my = points.reduce((s, p) => s + p.bytes, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.requests - mx) * (p.bytes - my);
    sxx += (p.requests - mx) ** 2;
  }
  if (sxx === 0) throw new Error('a slope needs points at different request counts');
  return sxy / sxx;
}

/**
 * Splits the series into `windows` consecutive windows (as even as possible; neighbours share their
 * boundary sample, so every interval between two samples belongs to exactly one window) and fits a
 * slope to each. The series leaks when every window grows faster than `maxBytesPerRequest`.
 */
export function leakVerdict(
  points: readonly TrendPoint[],
  options: { maxBytesPerRequest: number; windows?: number },
): TrendVerdict {
  const windows = options.windows ?? 3;
  const intervals = points.length - 1;
  if (windows < 2) throw new Error('at least two windows: one window cannot tell a step from a leak');
  if (intervals < 2 * windows)
    throw new Error(`${points.length} samples are too few for ${windows} windows of at least two intervals each`);
  for (let i = 1; i < points.length; i++)
    if (!(points[i]!.requests > points[i - 1]!.requests)) throw new Error('samples must be in request order');
  const windowSlopes: number[] = [];
  for (let w = 0; w < windows; w++) {
    const from = Math.round((w * intervals) / windows);
    const to = Math.round(((w + 1) * intervals) / windows);
    windowSlopes.push(slope(points.slice(from, to + 1)));
  }
  const sustainedSlope = Math.min(...windowSlopes);
  return { windowSlopes, sustainedSlope, leaks: sustainedSlope > options.maxBytesPerRequest };
}
