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
  | { ok: false; message: string };

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
 * The embedded store's write side: every append of a group in one transaction (a savepoint per
 * multi-event append), each checked against its expected revision, with earlier appends of the
 * same group counted; a re-append of stored event ids answers with the original result.
 *
 * Self-contained on purpose — no imports, no outer variables — because the worker thread runs it
 * from its source text (`sqliteWriter.toString()`), which works the same from `dist/` and under
 * ts-jest. `driverPath` is better-sqlite3 resolved by the caller.
 */
export function sqliteWriter(file: string, driverPath: string): SqliteWriter {
  const Database = require(driverPath) as typeof import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare(
    'INSERT INTO events (stream_id, revision, event_id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const streamRevision = db.prepare('SELECT MAX(revision) AS r FROM events WHERE stream_id = ?');
  const byEventId = db.prepare('SELECT position, stream_id, revision FROM events WHERE event_id = ?');
  const purgeOne = db.prepare('DELETE FROM events WHERE position = ? AND event_id = ?');

  /** Thrown inside an append's savepoint (so its partial inserts roll back) when an event id is stored already. */
  class Replayed extends Error {}
  // No `instanceof Error`: the driver's errors may come from another realm (jest's vm contexts).
  const isUniqueViolation = (error: unknown) =>
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE';

  const storedRevision = (streamId: string, revisions: Map<string, number>): number =>
    revisions.get(streamId) ?? (streamRevision.get(streamId) as { r: number | null }).r ?? -1;

  /** The original result of an append whose events are all stored in this stream, in order; else a conflict. */
  function replayOf(a: WireAppend, current: number): WireOutcome {
    const stored = a.events.map(
      (e) => byEventId.get(e.eventId) as { position: number; stream_id: string; revision: number } | undefined,
    );
    const first = stored[0];
    const same =
      first !== undefined &&
      stored.every((s, i) => s && s.stream_id === a.streamId && s.revision === first.revision + i);
    if (!same) return { ok: false, conflict: { actual: current < 0 ? 'no_stream' : current } };
    const last = stored[stored.length - 1]!;
    return { ok: true, nextExpectedRevision: last.revision, position: last.position, positions: [] };
  }

  function insertEvents(a: WireAppend, current: number, revisions: Map<string, number>): WireOutcome {
    let revision = current;
    const positions: number[] = [];
    for (const e of a.events) {
      revision += 1;
      try {
        positions.push(Number(insert.run(a.streamId, revision, e.eventId, e.type, e.data, e.metadata).lastInsertRowid));
      } catch (error) {
        // Stored already (this event id, or this revision of the stream): decided after the savepoint.
        if (isUniqueViolation(error)) throw new Replayed();
        throw error;
      }
    }
    revisions.set(a.streamId, revision);
    for (const [position, eventId] of a.purge ?? []) purgeOne.run(position, eventId);
    return { ok: true, nextExpectedRevision: revision, position: positions[positions.length - 1]!, positions };
  }

  function appendOne(a: WireAppend, revisions: Map<string, number>): WireOutcome {
    const known = revisions.get(a.streamId);
    // A new stream needs no revision lookup: its first insert at revision 0 fails on
    // UNIQUE (stream_id, revision) exactly when the stream exists (revisions start at 0, no gaps).
    if (known === undefined && a.expected === 'no_stream') return insertEvents(a, -1, revisions);
    const current = storedRevision(a.streamId, revisions);
    const ok =
      a.expected === 'any' ||
      (a.expected === 'no_stream' && current < 0) ||
      (a.expected === 'stream_exists' && current >= 0) ||
      a.expected === current;
    // A re-append of stored events answers with the original result even when the revision moved on.
    return ok ? insertEvents(a, current, revisions) : replayOf(a, current);
  }

  const writeGroup = db.transaction((group: WireAppend[]): WireGroupResult => {
    const revisions = new Map<string, number>(); // streams touched earlier in this group
    const outcomes: WireOutcome[] = [];
    let written = 0;
    for (const a of group) {
      let outcome: WireOutcome;
      try {
        try {
          // A nested transaction is a SAVEPOINT: an append failing part-way leaves nothing behind.
          // One event is one INSERT, atomic by itself: no savepoint needed (two statements saved).
          outcome =
            a.events.length === 1 && !a.purge
              ? appendOne(a, revisions)
              : db.transaction(() => appendOne(a, revisions))();
        } catch (error) {
          if (!(error instanceof Replayed)) throw error;
          outcome = replayOf(a, storedRevision(a.streamId, revisions));
        }
      } catch (error) {
        outcome = { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
      if (outcome.ok) written += outcome.positions.length;
      outcomes.push(outcome);
    }
    return { outcomes, written };
  });

  return {
    write: (group) => writeGroup(group),
    close: () => db.close(),
  };
}
