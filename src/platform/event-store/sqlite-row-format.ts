import type Database from 'better-sqlite3';
import type { EventMetadata, RecordedEvent } from '../events/envelope';
import { deepFreeze } from './stream-cache';

/**
 * The SQLite store's row format (version 2), made small because every refresh grant writes a row:
 *
 * - `event_log` holds the rows; `events` is a view with the first format's columns (type names,
 *   for people and tools reading the file with SQL).
 * - Type names live once in `event_types`; a row holds the type's small integer id.
 * - Streams are found through a 32-bit hash of their id (`stream_key`, index with the revision)
 *   instead of an index holding every stream id a second time; the row keeps the id, and every
 *   lookup compares it, so a hash collision costs a row read, never a wrong answer.
 * - Event ids (UUIDs) are stored as 16 bytes; the metadata row no longer repeats the event id, and
 *   is a JSON array (correlation id, actor, time[, causation id]) with UUIDs as base64url.
 * - No index on event ids: a re-append is recognised within its own stream.
 * - `store_identity` keeps the store's identity once known (see SqliteEventStore.identity).
 *
 * Files in the first format are converted when opened (one transaction; data and metadata text
 * are copied as they are, and read as before: old shapes stay readable).
 */
export const ROW_FORMAT_DDL = `
  CREATE TABLE IF NOT EXISTS event_types (
    id   INTEGER PRIMARY KEY,
    name TEXT    NOT NULL UNIQUE
  );
  CREATE TABLE IF NOT EXISTS event_log (
    position   INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_key INTEGER NOT NULL,
    stream_id  TEXT    NOT NULL,
    revision   INTEGER NOT NULL,
    event_id   BLOB    NOT NULL,
    type_id    INTEGER NOT NULL,
    data       TEXT    NOT NULL,
    metadata   TEXT    NOT NULL
  );
  CREATE INDEX IF NOT EXISTS event_log_by_stream ON event_log (stream_key, revision);
  CREATE INDEX IF NOT EXISTS event_log_by_type ON event_log (type_id, position);
  CREATE VIEW IF NOT EXISTS events AS
    SELECT l.position, l.stream_id, l.revision,
           CASE WHEN typeof(l.event_id) = 'blob' THEN lower(
             substr(hex(l.event_id), 1, 8) || '-' || substr(hex(l.event_id), 9, 4) || '-' ||
             substr(hex(l.event_id), 13, 4) || '-' || substr(hex(l.event_id), 17, 4) || '-' ||
             substr(hex(l.event_id), 21)) ELSE l.event_id END AS event_id,
           t.name AS type, l.data, l.metadata
    FROM event_log l JOIN event_types t ON t.id = l.type_id;
  CREATE TABLE IF NOT EXISTS store_identity (
    only     INTEGER PRIMARY KEY CHECK (only = 1),
    identity TEXT    NOT NULL
  );
`;

/**
 * 32-bit FNV-1a of a stream id. Self-contained (no imports): the writer thread runs it from its
 * source text, and it must give the same number everywhere.
 */
export function streamKey(streamId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < streamId.length; i++) {
    h ^= streamId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** A canonical lowercase UUID as its 16 bytes; any other id as it is. Self-contained (writer thread). */
export function storedEventId(eventId: string): Buffer | string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(eventId)
    ? Buffer.from(eventId.replace(/-/g, ''), 'hex')
    : eventId;
}

export function eventIdOf(stored: Buffer | Uint8Array | string): string {
  if (typeof stored === 'string') return stored;
  // A view of the row's bytes, not a copy (every event the feed reads comes through here).
  const bytes = Buffer.isBuffer(stored) ? stored : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A string in the metadata array: a UUID as `~` + base64url of its bytes, a string starting with `~` escaped. */
function packString(s: string): string {
  if (UUID.test(s)) return `~${Buffer.from(s.replace(/-/g, ''), 'hex').toString('base64url')}`;
  return s.startsWith('~') ? `~${s}` : s;
}

function unpackString(s: string): string {
  if (!s.startsWith('~')) return s;
  if (s.startsWith('~~')) return s.slice(1);
  return eventIdOf(Buffer.from(s.slice(1), 'base64url'));
}

/** Metadata as stored: `[correlationId, actor, occurredAt]`, plus the causation id when there is one. */
export function packMetadata(m: EventMetadata): string {
  const row: Array<string | number> = [packString(m.correlationId), packString(m.actor), m.occurredAt];
  if (m.causationId !== null) row.push(packString(m.causationId));
  return JSON.stringify(row);
}

/** Either format: the first stored the whole envelope metadata as an object. */
export function unpackMetadata(text: string, eventId: string): EventMetadata {
  const parsed = JSON.parse(text) as EventMetadata | [string, string, number, string?];
  if (!Array.isArray(parsed)) return parsed;
  const [correlationId, actor, occurredAt, causationId] = parsed;
  return {
    eventId,
    correlationId: unpackString(correlationId),
    causationId: causationId === undefined ? null : unpackString(causationId),
    actor: unpackString(actor),
    occurredAt,
  };
}

/**
 * The metadata a read of the stored row gives back, made from the appended one without packing and
 * unpacking it (frozen: every read of the row shares it), when the two are equal field for field:
 * UUIDs and `~` escapes come back as they went, a null causation id stays null. Undefined for
 * what JSON would change (a non-finite or negative-zero time, a value of the wrong type).
 */
export function readBackMetadata(m: EventMetadata): Readonly<EventMetadata> | undefined {
  const { eventId, correlationId, causationId, actor, occurredAt } = m;
  if (
    typeof eventId !== 'string' ||
    typeof correlationId !== 'string' ||
    typeof actor !== 'string' ||
    (causationId !== null && typeof causationId !== 'string') ||
    typeof occurredAt !== 'number' ||
    !Number.isFinite(occurredAt) ||
    Object.is(occurredAt, -0)
  )
    return undefined;
  return Object.freeze({ eventId, correlationId, causationId, actor, occurredAt });
}

/** A row of `event_log`, its type resolved to the name. */
export interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: Buffer | string;
  type: string;
  data: string;
  metadata: string;
  /** A row this process appended: its metadata as readBackMetadata made it (the text need not be read). */
  appended?: Readonly<EventMetadata>;
}

/**
 * A stored row as the event it holds. `data` is parsed when first read: readers of the whole feed
 * (the projections, each reactor) look at the type first and skip most events, and the largest ones
 * (a webhook attempt's hundred items) are read by one reader only.
 */
export const toRecorded = (row: EventRow): RecordedEvent => recorded(row, false);

/** As toRecorded, frozen: the event, its metadata and, once parsed, its data (shared by several readers). */
export const toFrozenRecorded = (row: EventRow): RecordedEvent => recorded(row, true);

function recorded(row: EventRow, frozen: boolean): RecordedEvent {
  // The text until parsed, then only the value: a cached event does not keep both.
  let text: string | null = row.data;
  let data: unknown;
  const metadata = row.appended ?? unpackMetadata(row.metadata, eventIdOf(row.event_id));
  const event: RecordedEvent = {
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    type: row.type,
    get data(): unknown {
      if (text !== null) {
        data = JSON.parse(text) as unknown;
        text = null;
        if (frozen) deepFreeze(data);
      }
      return data;
    },
    set data(value: unknown) {
      data = value;
      text = null;
    },
    metadata,
  };
  if (!frozen) return event;
  Object.freeze(metadata);
  return Object.freeze(event);
}

/**
 * Creates the tables, converting a file in the first format (an `events` table) in one
 * transaction: rows keep their positions, data and metadata text; the sequence continues.
 */
export function openRowFormat(db: Database.Database): void {
  const old = db.prepare("SELECT type FROM sqlite_master WHERE name = 'events'").get() as { type: string } | undefined;
  if (old?.type !== 'table') {
    db.exec(ROW_FORMAT_DDL);
    return;
  }
  db.function('hs_stream_key', { deterministic: true }, (id: unknown) => streamKey(String(id)));
  db.transaction(() => {
    db.exec('ALTER TABLE events RENAME TO events_v1');
    db.exec(ROW_FORMAT_DDL);
    db.exec('INSERT INTO event_types (name) SELECT DISTINCT type FROM events_v1 ORDER BY type');
    db.exec(`INSERT INTO event_log (position, stream_key, stream_id, revision, event_id, type_id, data, metadata)
             SELECT e.position, hs_stream_key(e.stream_id), e.stream_id, e.revision, e.event_id, t.id, e.data, e.metadata
             FROM events_v1 e JOIN event_types t ON t.name = e.type ORDER BY e.position`);
    db.exec('DROP TABLE events_v1');
  })();
}
