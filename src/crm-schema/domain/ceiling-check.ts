import type { Tier, TierLimits } from '../../platform/tiers';
import type { AccountLimitsState } from './account-limits.state';
import { effectiveLimits, LimitName } from './ceilings';
import { limitExceeded, unknownObjectType } from './limit-errors';
import { ResolvedObjectType, resolveObjectType } from './object-types';

/** Facts a command brings along: who asks, when, and the account's tier (from the directory). */
export interface CommandFacts {
  hubId: number;
  tier: Tier;
  tierLimits: TierLimits;
  userId: number | null;
  now: number;
}

/** The path's object type among the standard ones and the account's active custom schemas (else 400). */
export function resolveActive(state: AccountLimitsState, raw: string, hubId: number): ResolvedObjectType {
  const resolved = resolveObjectType(raw, hubId, Object.values(state.schemas));
  if (!resolved) throw unknownObjectType(raw);
  return resolved;
}

/** Refuses `adding` more of a limit when usage would pass the ceiling in force (override, else tier). */
export function checkCeiling(
  name: LimitName,
  usage: number,
  adding: number,
  state: AccountLimitsState,
  facts: CommandFacts,
  scope = '',
): void {
  const limit = effectiveLimits(facts.tierLimits, state.overrides)[name];
  if (usage + adding > limit) {
    const overridden = state.overrides[name] !== undefined && state.overrides[name] !== null;
    throw limitExceeded(name, limit, usage, facts.tier, overridden, adding, scope);
  }
}
