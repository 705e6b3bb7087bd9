import type { ExpectedRevision } from './event-store.port';

/** One event as it crosses to the writer: its data and metadata already JSON text. */
export interface WireEvent {
  type: string;
  eventId: string;
  data: string;
  metadata: string;
}

export interface WireAppend {
  streamId: string;
  expected: ExpectedRevision;
  events: WireEvent[];
  /**
   * Archived events (position, event id) deleted in this append's transaction, so the record of
   * an archive batch and the removal of its events commit together or not at all.
   */
  purge?: Array<[number, string]>;
}

export type WireOutcome =
  /** `positions` of the events this append wrote; [] when it was a replay of stored events. */
  | { ok: true; nextExpectedRevision: number; position: number; positions: number[] }
  | { ok: false; conflict: { actual: number | 'no_stream' } }
  | { ok: false; message: string; code?: string };

export interface WireGroupResult {
  outcomes: WireOutcome[];
  /** Events written by this group (replays excluded). */
  written: number;
}

export interface SqliteWriter {
  /** Writes a group of appends in one transaction; throws when the transaction itself fails. */
  write(group: WireAppend[]): WireGroupResult;
  close(): void;
}

/**
 * Helpers the writer needs, passed in because the thread has no imports: the row format (see
 * sqlite-row-format.ts) and storage-fault.ts's reading of SQLite's result codes.
 */
export interface WriterRowFormat {
  streamKey: (streamId: string) => number;
  storedEventId: (eventId: string) => Buffer | string;
  storageFaultReason: (code: string) => string | null;
}

/**
 * The embedded store's write side: every append of a group in one transaction (a savepoint per
 * multi-event append), each checked against its expected revision, with earlier appends of the
 * same group counted; a re-append of event ids stored in the stream answers with the original result.
 *
 * Self-contained on purpose — no imports, no outer variables — because the worker thread runs it
 * from its source text (`sqliteWriter.toString()`), which works the same from `dist/` and under
 * ts-jest. `driverPath` is better-sqlite3 resolved by the caller.
 */
export function sqliteWriter(file: string, driverPath: string, format: WriterRowFormat): SqliteWriter {
  const Database = require(driverPath) as typeof import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  // 4 MiB of page cache, not better-sqlite3's 16 (which filled the writer thread's malloc arena to
  // 22 MiB): appends touch the indexes' right-hand pages, revision lookups the streams being written.
  db.pragma('cache_size = -4096');
  const insert = db.prepare(
    'INSERT INTO event_log (stream_key, stream_id, revision, event_id, type_id, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const streamRevision = db.prepare('SELECT MAX(revision) AS r FROM event_log WHERE stream_key = ? AND stream_id = ?');
  // Event ids are 16 bytes, or text when written in the first format (or not a UUID).
  const inStream = db.prepare(
    'SELECT position, revision FROM event_log WHERE stream_key = ? AND stream_id = ? AND event_id IN (?, ?)',
  );
  const purgeOne = db.prepare('DELETE FROM event_log WHERE position = ? AND event_id IN (?, ?)');
  const addType = db.prepare('INSERT OR IGNORE INTO event_types (name) VALUES (?)');
  const typeIdOf = db.prepare('SELECT id FROM event_types WHERE name = ?');
  /** Type ids known to be committed; those added by the group in flight join after its commit. */
  const typeIds = new Map<string, number>();
  let addedTypes = new Map<string, number>();

  const typeId = (name: string): number => {
    const known = typeIds.get(name) ?? addedTypes.get(name);
    if (known !== undefined) return known;
    addType.run(name);
    const id = (typeIdOf.get(name) as { id: number }).id;
    addedTypes.set(name, id);
    return id;
  };

  /**
   * A storage fault (disk full, read-only, I/O error) ends the whole group: SQLite may have rolled
   * the transaction back already, and appends run after that would commit one by one, outside it.
   */
  const abortsGroup = (error: unknown) => {
    if (!db.inTransaction) return true;
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    return typeof code === 'string' && format.storageFaultReason(code) !== null;
  };

  const storedRevision = (streamId: string, revisions: Map<string, number>): number =>
    revisions.get(streamId) ??
    (streamRevision.get(format.streamKey(streamId), streamId) as { r: number | null }).r ??
    -1;

  /** Where an event id is stored in this stream, if it is. */
  const stored = (streamId: string, eventId: string) =>
    inStream.get(format.streamKey(streamId), streamId, format.storedEventId(eventId), eventId) as
      { position: number; revision: number } | undefined;

  /** The original result of an append whose events are all stored in this stream, in order; else a conflict. */
  function replayOf(a: WireAppend, current: number): WireOutcome {
    const found = a.events.map((e) => stored(a.streamId, e.eventId));
    const first = found[0];
    const same = first !== undefined && found.every((s, i) => s && s.revision === first.revision + i);
    if (!same) return { ok: false, conflict: { actual: current < 0 ? 'no_stream' : current } };
    const last = found[found.length - 1]!;
    return { ok: true, nextExpectedRevision: last.revision, position: last.position, positions: [] };
  }

  function insertEvents(a: WireAppend, current: number, revisions: Map<string, number>): WireOutcome {
    const key = format.streamKey(a.streamId);
    let revision = current;
    const positions: number[] = [];
    for (const e of a.events) {
      revision += 1;
      const row = [key, a.streamId, revision, format.storedEventId(e.eventId), typeId(e.type), e.data, e.metadata];
      positions.push(Number(insert.run(...row).lastInsertRowid));
    }
    revisions.set(a.streamId, revision);
    for (const [position, eventId] of a.purge ?? []) purgeOne.run(position, format.storedEventId(eventId), eventId);
    return { ok: true, nextExpectedRevision: revision, position: positions[positions.length - 1]!, positions };
  }

  function appendOne(a: WireAppend, revisions: Map<string, number>): WireOutcome {
    const current = storedRevision(a.streamId, revisions);
    const ok =
      a.expected === 'any' ||
      (a.expected === 'no_stream' && current < 0) ||
      (a.expected === 'stream_exists' && current >= 0) ||
      a.expected === current;
    // A re-append of stored events answers with the original result even when the revision moved
    // on, or when the expectation ('any') still holds.
    if (!ok) return replayOf(a, current);
    if (current >= 0 && (a.expected === 'any' || a.expected === 'stream_exists')) {
      const replay = replayOf(a, current);
      if (replay.ok) return replay;
    }
    return insertEvents(a, current, revisions);
  }

  const writeGroup = db.transaction((group: WireAppend[]): WireGroupResult => {
    const revisions = new Map<string, number>(); // streams touched earlier in this group
    const outcomes: WireOutcome[] = [];
    let written = 0;
    // New type names are added outside any append's savepoint, so a rolled-back append cannot
    // take a type row away from the ids remembered after the commit.
    for (const a of group) for (const e of a.events) typeId(e.type);
    for (const a of group) {
      let outcome: WireOutcome;
      try {
        // A nested transaction is a SAVEPOINT: an append failing part-way leaves nothing behind.
        // One event is one INSERT, atomic by itself: no savepoint needed (two statements saved).
        outcome =
          a.events.length === 1 && !a.purge ? appendOne(a, revisions) : db.transaction(() => appendOne(a, revisions))();
      } catch (error) {
        if (abortsGroup(error)) throw error; // the transaction rolls back; every append of the group is refused
        const code = (error as { code?: unknown }).code;
        outcome = {
          ok: false,
          message: error instanceof Error ? error.message : String(error),
          ...(typeof code === 'string' ? { code } : {}),
        };
      }
      if (outcome.ok) written += outcome.positions.length;
      outcomes.push(outcome);
    }
    return { outcomes, written };
  });

  return {
    write: (group) => {
      try {
        const result = writeGroup(group);
        for (const [name, id] of addedTypes) typeIds.set(name, id);
        return result;
      } finally {
        addedTypes = new Map();
      }
    },
    close: () => db.close(),
  };
}
