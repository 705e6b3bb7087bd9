import type { RecordedEvent } from '../../src/platform/events/envelope';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { newEvent } from '../support/event-store-fixtures';
import { ScriptedEsdbClient } from '../support/scripted-esdb-client';

/*
 * 8. A resubscribe starts from the last filter checkpoint past our last event (nothing of ours
 * lies below it), not from that event: the system records in between are not scanned again. The
 * stand-in plays each reading of 6.2.1's undocumented semantics (what a checkpoint names, whether
 * a subscription repeats its start) so none of them can make the feed skip an event.
 */

function adapter() {
  const client = new ScriptedEsdbClient();
  client.checkpointEvery = 5;
  const store = new EventStoreDbEventStore(client, {
    credentials: { username: 'u', password: 'p' },
    backoff: { initialMs: 1, maxMs: 4 },
  });
  return { client, store };
}

const ids = (events: RecordedEvent[]) => events.map((e) => e.metadata.eventId);
const subscribedFrom = (client: ScriptedEsdbClient, call: number): number => {
  const from = client.subscribeCalls[call]!.fromPosition;
  return typeof from === 'object' ? Number(from.commit) : -1;
};

const semantics = [
  ['last-scanned', true],
  ['last-scanned', false],
  ['next-to-scan', true],
  ['next-to-scan', false],
] as const;

describe('8. filter checkpoints: a resume does not rescan what the server filtered out', () => {
  it.each(semantics)(
    'checkpoint names the %s record, subscription repeats its start: %s',
    async (names, repeatStart) => {
      const { client, store } = adapter();
      client.checkpointNames = names;
      client.subscriptionsRepeatStart = repeatStart;
      const first = newEvent('cp.A');
      await store.append('cp-1', [first], 'no_stream');
      for (let i = 0; i < 21; i++) client.writeForeign('$stats-node', '$statistics');
      const system = client.log.slice(1);
      // Checkpoints after the 5th, 10th, 15th and 20th system record: the last names the 20th or the 21st.
      const checkpoint = system[names === 'last-scanned' ? 19 : 20]!.position;

      const sub = store.subscribeToAll(0);
      const iterator = sub[Symbol.asyncIterator]();
      const got: RecordedEvent[] = [...((await iterator.next()).value as RecordedEvent[])];
      expect(ids(got)).toEqual([first.metadata.eventId]);
      const pending = iterator.next(); // the feed reads on: past the checkpoints
      client.disrupt();
      const second = newEvent('cp.B');
      await store.append('cp-2', [second], 'no_stream');
      got.push(...((await pending).value as RecordedEvent[]));
      sub.close();
      await store.close();

      expect(ids(got)).toEqual([first.metadata.eventId, second.metadata.eventId]);
      expect(client.subscribeCalls).toHaveLength(2);
      expect(subscribedFrom(client, 1)).toBe(checkpoint); // not the first event's position
      expect(checkpoint).toBeGreaterThan(got[0]!.position);
    },
  );

  it.each(semantics)(
    'never skips an event of ours at the checkpoint (names the %s record, repeats its start: %s)',
    async (names, repeatStart) => {
      const { client, store } = adapter();
      client.checkpointNames = names;
      client.subscriptionsRepeatStart = repeatStart;
      const first = newEvent('cp.A');
      await store.append('cp-1', [first], 'no_stream');
      // The last checkpoint comes at the end of the log: next-to-scan names where the next record lands.
      for (let i = 0; i < 5; i++) client.writeForeign('$stats-node', '$statistics');

      const sub = store.subscribeToAll(0);
      const iterator = sub[Symbol.asyncIterator]();
      const got: RecordedEvent[] = [...((await iterator.next()).value as RecordedEvent[])];
      const pending = iterator.next();
      client.disrupt();
      // Written while no subscription is open, at the position a next-to-scan checkpoint named.
      const second = newEvent('cp.B');
      await store.append('cp-2', [second], 'no_stream');
      got.push(...((await pending).value as RecordedEvent[]));
      sub.close();
      await store.close();

      expect(ids(got)).toEqual([first.metadata.eventId, second.metadata.eventId]);
      const resumedFrom = subscribedFrom(client, 1);
      if (names === 'last-scanned') expect(resumedFrom).toBe(client.log[5]!.position);
      else expect(resumedFrom).toBe(got[0]!.position); // the record there is ours: back to our last event
    },
  );
});
