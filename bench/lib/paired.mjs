// A before/after decision on paired windows (each round measures both sides on the same host state):
// the median paired difference and its distribution-free 95 % interval (the sign test's order
// statistics), judged against a margin of ±10 % of the reference side's median. "Unchanged" means the
// whole interval lies inside the margin: a difference too small to matter, not merely one too noisy
// to see (an interval that reaches past the margin says "not shown", whatever the median).

/** P(X ≤ k) for X ~ Binomial(n, ½). */
function binomialCdf(k, n) {
  let term = 0.5 ** n;
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * The 95 % interval of the median of `diffs` as the k-th smallest and k-th largest values, k the
 * largest with P(X ≤ k − 1) ≤ 2.5 %; null with fewer than 6 pairs (no such k exists).
 */
export function medianInterval(diffs) {
  const sorted = [...diffs].sort((a, b) => a - b);
  const n = sorted.length;
  let k = 0;
  while (k + 1 <= n && binomialCdf(k, n) <= 0.025) k++;
  if (k === 0) return null;
  return { low: sorted[k - 1], high: sorted[n - k], confidence: 1 - 2 * binomialCdf(k - 1, n) };
}

export function pairedVerdict(diffs, reference, margin = 0.1) {
  const sorted = [...diffs].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const higher = diffs.filter((d) => d > 0).length;
  const lower = diffs.filter((d) => d < 0).length;
  const interval = medianInterval(diffs);
  const bound = Math.abs(reference) * margin;
  const within = interval !== null && interval.low >= -bound && interval.high <= bound;
  const f = (x) => x.toFixed(1);
  const text =
    `median difference ${f(median)} (higher in ${higher} of ${n} pairs, lower in ${lower}); ` +
    (interval
      ? `${(interval.confidence * 100).toFixed(1)} % interval [${f(interval.low)}, ${f(interval.high)}]`
      : 'too few pairs for an interval') +
    ` against ±${f(bound)} (${margin * 100} % of ${f(reference)}): ${within ? 'unchanged' : 'not shown unchanged'}`;
  return { median, higher, lower, interval, within, text };
}

/** Latency histograms for pooled quantiles: 0.1 ms bins up to HISTOGRAM_MS, the last bin everything above. */
export const HISTOGRAM_MS = 1000;
const BINS_PER_MS = 10;

/** The histogram of latencies (ms). */
export function histogramOf(latencies) {
  const bins = new Uint32Array(HISTOGRAM_MS * BINS_PER_MS + 1);
  for (const ms of latencies) bins[Math.min(bins.length - 1, Math.max(0, Math.floor(ms * BINS_PER_MS)))]++;
  return bins;
}

/** The q-quantile (ms, the upper edge of its bin) of the sum of `histograms`. */
function pooledQuantile(histograms, q, sum) {
  sum.fill(0);
  let n = 0;
  for (const h of histograms) {
    for (let i = 0; i < h.length; i++) sum[i] += h[i];
  }
  for (let i = 0; i < sum.length; i++) n += sum[i];
  const rank = Math.min(n - 1, Math.floor(q * n));
  let seen = 0;
  for (let i = 0; i < sum.length; i++) {
    seen += sum[i];
    if (seen > rank) return (i + 1) / BINS_PER_MS;
  }
  return NaN;
}

/**
 * The same decision for a quantile of every window pooled (each side's requests over the whole run,
 * the rounds alternated in time): the pooled q-quantile's difference (delivering − cleared) and its
 * 95 % interval by a paired bootstrap over the rounds (a resample draws whole rounds, both sides of
 * each, so the host's drift from round to round stays in the interval), against ±margin of the
 * reference side's pooled quantile. A window's own p99 is set by its few longest stalls; pooled, the
 * same stalls weigh as often as they happen. Seeded: the same windows give the same interval.
 */
export function pooledVerdict(onHistograms, offHistograms, q = 0.99, margin = 0.1, resamples = 2000) {
  const rounds = onHistograms.length;
  const sum = new Float64Array(onHistograms[0].length);
  const on = pooledQuantile(onHistograms, q, sum);
  const off = pooledQuantile(offHistograms, q, sum);
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const diffs = [];
  for (let b = 0; b < resamples; b++) {
    const picked = Array.from({ length: rounds }, () => Math.floor(random() * rounds));
    diffs.push(
      pooledQuantile(
        picked.map((i) => onHistograms[i]),
        q,
        sum,
      ) -
        pooledQuantile(
          picked.map((i) => offHistograms[i]),
          q,
          sum,
        ),
    );
  }
  diffs.sort((a, b) => a - b);
  const low = diffs[Math.floor(0.025 * resamples)];
  const high = diffs[Math.ceil(0.975 * resamples) - 1];
  const bound = Math.abs(off) * margin;
  const within = rounds >= 6 && low >= -bound && high <= bound;
  const f = (x) => x.toFixed(1);
  const text =
    `pooled over ${rounds} rounds ${f(on)} vs ${f(off)} ms, difference ${f(on - off)}; ` +
    `95 % bootstrap interval over the rounds [${f(low)}, ${f(high)}] against ±${f(bound)} (${margin * 100} % of ${f(off)}): ` +
    `${within ? 'unchanged' : 'not shown unchanged'}`;
  return { on, off, low, high, within, text };
}
