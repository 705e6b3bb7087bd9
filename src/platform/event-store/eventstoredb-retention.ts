import type { NewEvent } from '../events/envelope';
import type { AppendResult, ArchivedEvents, ExpectedRevision, StoreRetention } from './event-store.port';
import type { EsdbClient } from './eventstoredb-client';

/** The part of the client the retention needs (a fake in unit tests). */
export type StreamMetadataWriter = Required<Pick<EsdbClient, 'setStreamMetadata'>>;

type Append = (streamId: string, events: NewEvent[], expected: ExpectedRevision) => Promise<AppendResult>;

/**
 * The audit retention on EventStoreDB, with its own means (docs/retention.md): the archiver reads
 * the same ended streams from `$all` and writes the same archive files; then, instead of deleting
 * rows, it sets each archived stream's `$tb` (truncate before) past its last archived event, so
 * reads stop returning them, and the node's scavenge — run by the operator — frees the space.
 * Setting `$tb` twice is harmless, so a batch interrupted between `$tb` and its ops.HistoryArchived
 * is simply finished again on the next start. The adapter offers it as its `retention`.
 */
export class EventStoreDbRetention implements StoreRetention {
  constructor(
    private readonly client: StreamMetadataWriter,
    private readonly append: Append,
  ) {}

  /** `$tb` on the archived streams first, then the record; there are no rows to delete. */
  async appendRemovingArchived(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    archived: ArchivedEvents,
  ): Promise<AppendResult> {
    await this.truncateArchived(archived.streams);
    return this.append(streamId, events, expected);
  }

  async truncateArchived(streams: ArchivedEvents['streams']): Promise<void> {
    for (const s of streams) await this.client.setStreamMetadata(s.streamId, { truncateBefore: s.lastRevision + 1 });
  }
}
