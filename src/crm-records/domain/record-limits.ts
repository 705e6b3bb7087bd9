/** Usage as a percentage of the limit, two decimals (as the other limits answer it). */
export function recordPercentage(usage: number, limit: number): number {
  if (limit <= 0) return 0;
  return Math.round((usage / limit) * 10_000) / 100;
}
