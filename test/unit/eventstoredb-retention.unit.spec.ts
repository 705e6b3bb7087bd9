import {
  EventStoreDbRetention,
  type StreamMetadataWriter,
} from '../../src/platform/event-store/eventstoredb-retention';

describe('EventStoreDB retention', () => {
  it('sets $tb of each archived stream just past its last archived revision', async () => {
    const calls: Array<[string, unknown]> = [];
    const client = {
      setStreamMetadata: (stream: string, metadata: unknown) => {
        calls.push([stream, metadata]);
        return Promise.resolve({ success: true, nextExpectedRevision: 0n, position: undefined });
      },
    } as unknown as StreamMetadataWriter;
    await new EventStoreDbRetention(client).truncateArchived([
      { streamId: 'oauth.access-token-1-a', lastRevision: 0 },
      { streamId: 'oauth.auth-code-b', lastRevision: 1 },
    ]);
    expect(calls).toEqual([
      ['oauth.access-token-1-a', { truncateBefore: 1 }],
      ['oauth.auth-code-b', { truncateBefore: 2 }],
    ]);
  });
});
