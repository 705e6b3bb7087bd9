import type { TierLimits } from '../../platform/tiers';
import type { LimitOverrides } from './limits-events';

export type LimitName = keyof TierLimits;

/** Every ceiling, in the order responses and messages list them. */
export const LIMIT_NAMES = [
  'calculatedProperties',
  'customObjectTypes',
  'customProperties',
  'associationLabels',
  'records',
  'customObjectRecords',
] as const satisfies readonly LimitName[];

// does not compile while a ceiling of TierLimits is missing from LIMIT_NAMES
const _everyLimitNamed: Record<Exclude<LimitName, (typeof LIMIT_NAMES)[number]>, never> = {};

/** The ceiling in force: the account's override where one is set, else its tier's value. */
export function effectiveLimits(tierLimits: TierLimits, overrides: LimitOverrides): TierLimits {
  const out = {} as TierLimits;
  for (const k of LIMIT_NAMES) {
    const o = overrides[k];
    out[k] = o === undefined || o === null ? tierLimits[k] : o;
  }
  return out;
}

/** Usage in percent of the limit, two decimals; 0 when the limit is 0 (never Infinity or NaN on the wire). */
export function percentage(usage: number, limit: number): number {
  if (limit <= 0) return 0;
  return Math.round((usage / limit) * 10_000) / 100;
}

/** Applies a PUT body on top of the overrides in force: a key set to null clears it, a missing (undefined) key keeps it. */
export function mergeOverrides(current: LimitOverrides, change: LimitOverrides): LimitOverrides {
  const out: LimitOverrides = { ...current };
  for (const k of LIMIT_NAMES) {
    const v = change[k];
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
