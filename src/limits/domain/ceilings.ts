import type { TierLimits } from '../../platform/tiers';
import type { LimitOverrides } from './limits-events';

export type LimitName = keyof TierLimits;

/** The ceiling in force: the account's override where one is set, else its tier's value. */
export function effectiveLimits(tierLimits: TierLimits, overrides: LimitOverrides): TierLimits {
  const pick = (k: LimitName) => {
    const o = overrides[k];
    return o === undefined || o === null ? tierLimits[k] : o;
  };
  return {
    calculatedProperties: pick('calculatedProperties'),
    customObjectTypes: pick('customObjectTypes'),
    customProperties: pick('customProperties'),
    associationLabels: pick('associationLabels'),
  };
}

/** Usage in percent of the limit, two decimals; 0 when the limit is 0 (never Infinity or NaN on the wire). */
export function percentage(usage: number, limit: number): number {
  if (limit <= 0) return 0;
  return Math.round((usage / limit) * 10_000) / 100;
}

/** Applies a PUT body on top of the overrides in force: a key set to null clears it, a missing (undefined) key keeps it. */
export function mergeOverrides(current: LimitOverrides, change: LimitOverrides): LimitOverrides {
  const out: LimitOverrides = { ...current };
  for (const k of ['calculatedProperties', 'customObjectTypes', 'customProperties', 'associationLabels'] as const) {
    const v = change[k];
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
