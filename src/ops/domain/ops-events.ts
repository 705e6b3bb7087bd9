import type { EventDefinitions } from '../../platform/events/event-type-registry';

export const OpsEventType = {
  HistoryArchived: 'ops.HistoryArchived',
} as const;

/**
 * One archive batch: its events were appended to `file` as the segment at `offset` (bytes,
 * SHA-256, count, position range as in the manifest) and removed from the live store in the
 * transaction that stored this event.
 */
export interface HistoryArchived {
  type: typeof OpsEventType.HistoryArchived;
  data: {
    file: string;
    offset: number;
    bytes: number;
    sha256: string;
    count: number;
    firstPosition: number;
    lastPosition: number;
    retentionDays: number;
    archivedAt: number;
  };
}

export type OpsEvent = HistoryArchived;

export const opsEvents: EventDefinitions = {
  [OpsEventType.HistoryArchived]: null,
} satisfies Record<OpsEvent['type'], null>;

/** The archive batches written to one archive file (one file per day: the stream stays short). */
export const historyArchiveStream = (file: string) => `ops.history-archive-${file}`;
