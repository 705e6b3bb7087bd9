import { segmentKey } from '../../platform/archive/archive-manifest';
import type { Decider } from '../../platform/commands/decider';
import { OpsEventType, type HistoryArchived } from './ops-events';

/** Segment keys (`file@offset`) already recorded: recording one twice changes nothing. */
export interface HistoryArchiveState {
  recorded: Set<string>;
}

export interface RecordArchivedHistoryCommand {
  type: 'RecordArchivedHistory';
  batch: Omit<HistoryArchived['data'], 'archivedAt' | 'retentionDays'>;
  retentionDays: number;
  now: number;
}

export const historyArchiveDecider: Decider<HistoryArchiveState, RecordArchivedHistoryCommand, HistoryArchived> = {
  initialState: () => ({ recorded: new Set() }),
  // The set is the fold's own (initialState makes a new one per load): adding in place keeps a
  // long archive history linear to fold.
  evolve: (state, event) => {
    state.recorded.add(segmentKey(event.data.file, event.data.offset));
    return state;
  },
  decide: (command, state) => {
    const { batch } = command;
    if (state.recorded.has(segmentKey(batch.file, batch.offset))) return [];
    return [
      {
        type: OpsEventType.HistoryArchived,
        data: { ...batch, retentionDays: command.retentionDays, archivedAt: command.now },
      },
    ];
  },
};
