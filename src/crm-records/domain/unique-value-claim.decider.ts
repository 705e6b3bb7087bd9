import type { Decider } from '../../platform/commands/decider';
import { contactAlreadyExists, uniqueValueTaken } from './record-errors';
import { CrmRecordEventType, type UniqueValueClaimed } from './record-events';

/**
 * A unique value's claim (a contact's e-mail, a `hasUniqueValue` property): of two records that
 * want one value, exactly one gets it. `takeOver` names a holder the caller found no longer
 * holding the value (archived, its value changed, or never stored): only then does the claim move.
 */
export interface ClaimUniqueValue {
  type: 'ClaimUniqueValue';
  hubId: number;
  objectTypeId: string;
  property: string;
  id: number;
  takeOver?: number;
  now: number;
}

export interface ClaimState {
  holder: number | null;
  /** When the holder claimed it: a claim whose record never appeared is taken over only once it is old. */
  claimedAt: number;
}

export const uniqueValueClaimDecider: Decider<ClaimState, ClaimUniqueValue, UniqueValueClaimed> = {
  initialState: () => ({ holder: null, claimedAt: 0 }),
  evolve: (_, event) => ({ holder: event.data.id, claimedAt: event.data.claimedAt }),
  decide: (c, s) => {
    if (s.holder === c.id) return [];
    if (s.holder !== null && s.holder !== c.takeOver) {
      throw c.objectTypeId === '0-1' && c.property === 'email'
        ? contactAlreadyExists(s.holder)
        : uniqueValueTaken(c.property, s.holder);
    }
    return [
      {
        type: CrmRecordEventType.UniqueValueClaimed,
        data: { hubId: c.hubId, objectTypeId: c.objectTypeId, property: c.property, id: c.id, claimedAt: c.now },
      },
    ];
  },
};
