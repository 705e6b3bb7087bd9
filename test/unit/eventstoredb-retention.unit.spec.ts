import type { NewEvent } from '../../src/platform/events/envelope';
import type { ExpectedRevision } from '../../src/platform/event-store/event-store.port';
import {
  EventStoreDbRetention,
  type StreamMetadataWriter,
} from '../../src/platform/event-store/eventstoredb-retention';

describe('EventStoreDB retention', () => {
  const archivedStreams = [
    { streamId: 'oauth.access-token-1-a', lastRevision: 0 },
    { streamId: 'oauth.auth-code-b', lastRevision: 1 },
  ];

  function recording() {
    const calls: Array<[string, unknown]> = [];
    const client: StreamMetadataWriter = {
      setStreamMetadata: (stream: string, metadata: unknown) => {
        calls.push([stream, metadata]);
        return Promise.resolve({ success: true, nextExpectedRevision: 0n, position: undefined });
      },
    };
    const append = (streamId: string, events: NewEvent[], expected: ExpectedRevision) => {
      calls.push([streamId, { append: events.length, expected }]);
      return Promise.resolve({ nextExpectedRevision: 0, position: 42 });
    };
    return { calls, retention: new EventStoreDbRetention(client, append) };
  }

  it('sets $tb of each archived stream just past its last archived revision', async () => {
    const { calls, retention } = recording();
    await retention.truncateArchived(archivedStreams);
    expect(calls).toEqual([
      ['oauth.access-token-1-a', { truncateBefore: 1 }],
      ['oauth.auth-code-b', { truncateBefore: 2 }],
    ]);
  });

  it('as the store’s retention: truncates the archived streams first, then appends the record', async () => {
    const { calls, retention } = recording();
    const record: NewEvent = {
      type: 'ops.HistoryArchived',
      data: {},
      metadata: { eventId: 'e-1', correlationId: 'c', causationId: null, actor: 'system:archiver', occurredAt: 0 },
    };
    const result = await retention.appendRemovingArchived('ops.history-archive-f', [record], 'no_stream', {
      purge: [{ position: 1, eventId: 'x', streamId: 'oauth.access-token-1-a' }],
      streams: archivedStreams,
    });
    expect(result).toEqual({ nextExpectedRevision: 0, position: 42 });
    expect(calls).toEqual([
      ['oauth.access-token-1-a', { truncateBefore: 1 }],
      ['oauth.auth-code-b', { truncateBefore: 2 }],
      ['ops.history-archive-f', { append: 1, expected: 'no_stream' }],
    ]);
  });
});
