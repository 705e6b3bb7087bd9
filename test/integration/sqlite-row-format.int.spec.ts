import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { newEvent } from '../support/event-store-fixtures';

/** The first row format, as files written before the compact one hold it. */
const FIRST_FORMAT = `
  CREATE TABLE events (
    position  INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_id TEXT    NOT NULL,
    revision  INTEGER NOT NULL,
    event_id  TEXT    NOT NULL UNIQUE,
    type      TEXT    NOT NULL,
    data      TEXT    NOT NULL,
    metadata  TEXT    NOT NULL,
    UNIQUE (stream_id, revision)
  );
  CREATE INDEX events_by_type ON events (type, position);
`;

describe('SQLite row format', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hs-row-format-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('converts a file of the first format on open: every old event reads as before, new ones follow', async () => {
    const file = join(dir, 'events.sqlite');
    const old = new Database(file);
    old.exec(FIRST_FORMAT);
    const insert = old.prepare(
      'INSERT INTO events (stream_id, revision, event_id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const written: Array<Omit<RecordedEvent, 'position'>> = [];
    for (let i = 0; i < 5; i++) {
      const e = newEvent(i % 2 ? 't.Odd' : 't.Even', { i, nested: { hex: 'ab'.repeat(32) } });
      const metadata = { ...e.metadata, causationId: i === 3 ? 'not-a-uuid' : null, actor: '~tilde' };
      insert.run(
        `s-${i % 3}`,
        Math.floor(i / 3),
        e.metadata.eventId,
        e.type,
        JSON.stringify(e.data),
        JSON.stringify(metadata),
      );
      written.push({ streamId: `s-${i % 3}`, revision: Math.floor(i / 3), type: e.type, data: e.data, metadata });
    }
    old.close();

    const next = newEvent('t.New', { ok: true });
    const store = new SqliteEventStore(file);
    try {
      const read = await store.readAll({ after: 0, limit: 100 });
      expect(read.map(({ position, ...rest }) => ({ position, ...rest }))).toEqual(
        written.map((w, i) => ({ position: i + 1, ...w })),
      );
      expect((await store.readAll({ after: 0, limit: 100, type: 't.Odd' })).map((e) => e.position)).toEqual([2, 4]);
      expect((await store.readStream('s-0')).map((e) => e.position)).toEqual([1, 4]);
      // A re-append of an event stored in the first format is still recognised.
      const [first] = read;
      const again = await store.append(
        's-0',
        [{ type: first!.type, data: first!.data, metadata: first!.metadata }],
        'no_stream',
      );
      expect(again).toEqual({ nextExpectedRevision: 0, position: 1 });
      expect(await store.append('s-0', [next], 1)).toEqual({ nextExpectedRevision: 2, position: 6 });
      expect((await store.readStream('s-0')).at(-1)).toEqual({ ...next, streamId: 's-0', revision: 2, position: 6 });
    } finally {
      await store.close();
    }
    // The `events` view keeps the first format's columns for SQL readers.
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT position, event_id, type FROM events ORDER BY position').all() as Array<{
      position: number;
      event_id: string;
      type: string;
    }>;
    db.close();
    expect(rows.map((r) => r.type)).toEqual(['t.Even', 't.Odd', 't.Even', 't.Odd', 't.Even', 't.New']);
    expect(rows.map((r) => r.event_id)).toEqual([...written.map((w) => w.metadata.eventId), next.metadata.eventId]);
  });

  it("a re-append of stored event ids with 'any' is a no-op returning the original result", async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    try {
      const batch = [newEvent('t.A'), newEvent('t.B')];
      const original = await store.append('any-stream', batch, 'any');
      expect(await store.append('any-stream', batch, 'any')).toEqual(original);
      expect(await store.append('any-stream', batch, 'stream_exists')).toEqual(original);
      expect(await store.readStream('any-stream')).toHaveLength(2);
    } finally {
      await store.close();
    }
  });

  it('stores metadata compactly and reads every field back (UUIDs, other ids, causation, a leading ~)', async () => {
    const file = join(dir, 'events.sqlite');
    const store = new SqliteEventStore(file);
    const events = [
      newEvent('t.A'),
      {
        ...newEvent('t.B'),
        metadata: { ...newEvent('t.B').metadata, correlationId: 'req-1', causationId: '~x', actor: '~user' },
      },
      {
        ...newEvent('t.C'),
        metadata: { ...newEvent('t.C').metadata, eventId: 'not-a-uuid', causationId: newEvent('t.X').metadata.eventId },
      },
    ];
    try {
      for (const [i, e] of events.entries()) await store.append(`m-${i}`, [e], 'no_stream');
      expect((await store.readAll({ after: 0, limit: 10 })).map((e) => e.metadata)).toEqual(
        events.map((e) => e.metadata),
      );
    } finally {
      await store.close();
    }
    const db = new Database(file, { readonly: true });
    const meta = (db.prepare('SELECT metadata FROM event_log WHERE position = 1').get() as { metadata: string })
      .metadata;
    db.close();
    expect(meta).not.toContain(events[0]!.metadata.eventId);
    expect(meta.length).toBeLessThan(JSON.stringify(events[0]!.metadata).length / 2);
  });
});
