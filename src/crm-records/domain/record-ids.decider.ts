import type { Decider } from '../../platform/commands/decider';
import { CrmRecordEventType, type RecordIdsReserved } from './record-events';

/**
 * An account's record ids, reserved in ranges: an instance takes `count` ids at once and hands
 * them out from memory, so this stream is written once per range, not per record. Ids left
 * unused when an instance stops are never handed out (HubSpot's ids have gaps too).
 */
export interface ReserveRecordIds {
  type: 'ReserveRecordIds';
  hubId: number;
  count: number;
  now: number;
}

export interface RecordIdsState {
  next: number;
}

export const FIRST_RECORD_ID = 1;

export const recordIdsDecider: Decider<RecordIdsState, ReserveRecordIds, RecordIdsReserved> = {
  initialState: () => ({ next: FIRST_RECORD_ID }),
  evolve: (_, event) => ({ next: event.data.from + event.data.count }),
  decide: (c, s) => [
    {
      type: CrmRecordEventType.RecordIdsReserved,
      data: { hubId: c.hubId, from: s.next, count: c.count, reservedAt: c.now },
    },
  ],
};
