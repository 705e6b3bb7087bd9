import { EventStreams } from '../../src/platform/commands/event-streams';
import type { NewEvent } from '../../src/platform/events/envelope';
import type {
  ArchivedEvents,
  EventStore,
  ExpectedRevision,
  StoreRetention,
} from '../../src/platform/event-store/event-store.port';

/**
 * EventStreams removes archived events through the store's optional `retention` and never asks
 * which store it is: a store that has one is used through it, a store without one refuses.
 */
describe('EventStreams and the store retention capability', () => {
  const context = { correlationId: 'c-1', actor: 'system:archiver' };
  const archived: ArchivedEvents = {
    purge: [{ position: 3, eventId: 'e-3', streamId: 'oauth.auth-code-a' }],
    streams: [{ streamId: 'oauth.auth-code-a', lastRevision: 0 }],
  };
  const record = { type: 'ops.HistoryArchived', data: { file: 'f', offset: 0 } };

  function streamsOver(retention: StoreRetention | undefined) {
    const calls: string[] = [];
    const store = {
      kind: 'sqlite',
      appendsInCallOrder: true,
      append: (streamId: string, _events: NewEvent[], _expected: ExpectedRevision) => {
        calls.push(`append ${streamId}`);
        return Promise.resolve({ nextExpectedRevision: 0, position: 9 });
      },
      ...(retention ? { retention } : {}),
    } as unknown as EventStore;
    return { calls, streams: new EventStreams(store, { now: () => 0 }) };
  }

  it('appends the record of an archive batch through the store’s retention, with the archived events', async () => {
    const seen: Array<[string, ArchivedEvents]> = [];
    const { calls, streams } = streamsOver({
      appendRemovingArchived: (streamId, events, _expected, given) => {
        seen.push([streamId, given]);
        expect(events.map((e) => e.type)).toEqual(['ops.HistoryArchived']);
        return Promise.resolve({ nextExpectedRevision: 0, position: 10 });
      },
    });
    const appended = await streams.appendRemovingArchived(
      'ops.history-archive-f',
      [record],
      'no_stream',
      context,
      archived,
    );
    expect(appended).toEqual({ position: 10 });
    expect(seen).toEqual([['ops.history-archive-f', archived]]);
    expect(calls).toEqual([]); // not a plain append
  });

  it('a plain append never goes through the retention', async () => {
    const { calls, streams } = streamsOver({
      appendRemovingArchived: () => Promise.reject(new Error('not for plain appends')),
    });
    await streams.append('s-1', [record], 'no_stream', context);
    expect(calls).toEqual(['append s-1']);
  });

  it('a store without retention refuses to record an archive batch (nothing appended)', async () => {
    const { calls, streams } = streamsOver(undefined);
    await expect(
      streams.appendRemovingArchived('ops.history-archive-f', [record], 'no_stream', context, archived),
    ).rejects.toThrow(/does not remove archived events/);
    expect(calls).toEqual([]);
  });
});
