import { NEAR_LIMIT_SHARE } from './association-types';

/** A record's association usage against its pair's limit: at (≥ 100 %), near (≥ 80 %, below the limit), or neither. */
export function limitStanding(usage: number, limit: number): 'at' | 'near' | null {
  if (usage >= limit) return 'at';
  if (usage >= Math.ceil(limit * NEAR_LIMIT_SHARE)) return 'near';
  return null;
}

/** The lowest usage that counts as near a limit. */
export const nearFloor = (limit: number) => Math.ceil(limit * NEAR_LIMIT_SHARE);

/** Percent of a limit, two decimals (as the other limits endpoints answer). */
export function percentOf(usage: number, limit: number): number {
  if (limit <= 0) return 0;
  return Math.round((usage / limit) * 10_000) / 100;
}

/** HubSpot's samples hold at most this many records. */
export const MAX_SAMPLES = 10;
