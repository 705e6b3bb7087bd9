import { SqliteFeedReader } from '../../src/platform/event-store/sqlite-feed-reader';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { newEvent, tempSqliteStore } from '../support/event-store-fixtures';

/**
 * The SQLite feed read on a connection of its own (the webhooks' delivery thread reads it so): the
 * same events, pages and head as the store gives, and its subscription woken by the store's commits.
 */
describe('SqliteFeedReader', () => {
  it('reads what the store committed: pages, typed pages, head', async () => {
    const t = tempSqliteStore({ liveTailSize: 16 });
    const reader = new SqliteFeedReader(t.file);
    try {
      await t.store.append('a', [newEvent('t.One', { n: 1 }), newEvent('t.Two', { n: 2 })], 'no_stream');
      await t.store.append('b', [newEvent('t.One', { n: 3 })], 'no_stream');
      expect(await reader.headPosition()).toBe(await t.store.headPosition());
      expect(await reader.readAll({ after: 0, limit: 10 })).toEqual(await t.store.readAll({ after: 0, limit: 10 }));
      const ones = await reader.readAll({ after: 0, limit: 10, types: ['t.One', 't.Never'] });
      expect(ones.map((e) => e.data)).toEqual([{ n: 1 }, { n: 3 }]);
    } finally {
      reader.close();
      await t.cleanup();
    }
  });

  it('its subscription catches up, then goes on with each commit it is told of', async () => {
    const t = tempSqliteStore({ liveTailSize: 16 });
    const reader = new SqliteFeedReader(t.file);
    const stop = t.store.onCommitted(() => reader.committed());
    const subscription = reader.subscribeToAll(0);
    try {
      await t.store.append('s', [newEvent('t.Before')], 'no_stream');
      const seen: RecordedEvent[] = [];
      const iterator = subscription[Symbol.asyncIterator]();
      const next = async () => seen.push(...((await iterator.next()).value as RecordedEvent[]));
      await next();
      expect(seen.map((e) => e.type)).toEqual(['t.Before']);
      const pending = next(); // waits: nothing more yet
      await t.store.append('s', [newEvent('t.After', { late: true })], 0);
      await pending;
      expect(seen.map((e) => [e.type, e.revision])).toEqual([
        ['t.Before', 0],
        ['t.After', 1],
      ]);
    } finally {
      subscription.close();
      stop();
      reader.close();
      await t.cleanup();
    }
  });

  it('shares its newest read of the feed with the next reader of the same range, and reads on from the file', async () => {
    const t = tempSqliteStore({ liveTailSize: 16 });
    const reader = new SqliteFeedReader(t.file);
    try {
      await t.store.append('a', [newEvent('t.One', { n: 1 }), newEvent('t.Two', { n: 2 })], 'no_stream');
      const first = await reader.readAll({ after: 0, limit: 10 });
      expect(first.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(Object.isFrozen(first[0]!.data)).toBe(true); // shared: nobody may change it for the other reader
      // A second reader of the range (the dispatcher after the outbox) gets the same events, parsed once.
      expect((await reader.readAll({ after: 0, limit: 10 }))[1]).toBe(first[1]);
      expect(await reader.readAll({ after: first[0]!.position, limit: 10 })).toEqual([first[1]]);
      expect(await reader.readAll({ after: 0, limit: 1 })).toEqual([first[0]]);
      // Past the shared read, the file: the newer commit is there.
      await t.store.append('b', [newEvent('t.One', { n: 3 })], 'no_stream');
      const later = await reader.readAll({ after: first[1]!.position, limit: 10 });
      expect(later.map((e) => e.data)).toEqual([{ n: 3 }]);
      // A range the shared read does not reach back to is read from the file too.
      const again = await reader.readAll({ after: 0, limit: 10 });
      expect(again.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(again).toEqual(await t.store.readAll({ after: 0, limit: 10 }));
    } finally {
      reader.close();
      await t.cleanup();
    }
  });
});
