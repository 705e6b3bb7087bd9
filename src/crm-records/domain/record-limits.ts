/**
 * HubSpot's record ceilings (its limits guide: 15,000,000 records per standard object type; custom
 * objects share one overall ceiling). Fixed here: the per-tier table and per-account overrides of
 * the other limits do not cover records yet.
 */
export const STANDARD_OBJECT_RECORD_LIMIT = 15_000_000;
export const CUSTOM_OBJECT_RECORDS_OVERALL_LIMIT = 500_000;

/** Usage as a percentage of the limit, two decimals (as the other limits answer it). */
export function recordPercentage(usage: number, limit: number): number {
  if (limit <= 0) return 0;
  return Math.round((usage / limit) * 10_000) / 100;
}
