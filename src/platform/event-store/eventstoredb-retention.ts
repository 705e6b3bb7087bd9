import { EventStoreDBClient } from '@eventstore/db-client';

/** The part of the client the retention needs (a fake in unit tests). */
export type StreamMetadataWriter = Pick<EventStoreDBClient, 'setStreamMetadata'>;

/**
 * The audit retention on EventStoreDB, with its own means (docs/retention.md): the archiver reads
 * the same ended streams from `$all` and writes the same archive files; then, instead of deleting
 * rows, it sets each archived stream's `$tb` (truncate before) past its last archived event, so
 * reads stop returning them, and the node's scavenge — run by the operator — frees the space.
 * Setting `$tb` twice is harmless, so a batch interrupted between `$tb` and its ops.HistoryArchived
 * is simply finished again on the next start. Separate from the store adapter on purpose.
 */
export class EventStoreDbRetention {
  constructor(private readonly client: StreamMetadataWriter) {}

  static fromConnectionString(connection: string): EventStoreDbRetention {
    return new EventStoreDbRetention(EventStoreDBClient.connectionString(connection));
  }

  async truncateArchived(streams: ReadonlyArray<{ streamId: string; lastRevision: number }>): Promise<void> {
    for (const s of streams) await this.client.setStreamMetadata(s.streamId, { truncateBefore: s.lastRevision + 1 });
  }
}
