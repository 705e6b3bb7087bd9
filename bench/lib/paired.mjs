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
