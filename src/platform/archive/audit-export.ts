import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedEvent } from '../events/envelope';
import { auditView } from '../events/credential-hashes';
import { toRecorded, type EventRow } from '../event-store/sqlite-row-format';
import { ArchiveFiles } from './archive-files';
import { segmentsBetween } from './archive-manifest';

/** `--from`/`--to`: global positions (inclusive) or ISO dates (occurredAt, `to` exclusive). */
export interface ExportRange {
  fromPosition: number;
  toPosition: number;
  fromTime: number;
  toTime: number;
}

export function parseExportRange(args: readonly string[]): ExportRange {
  const range: ExportRange = {
    fromPosition: 1,
    toPosition: Number.MAX_SAFE_INTEGER,
    fromTime: Number.NEGATIVE_INFINITY,
    toTime: Number.POSITIVE_INFINITY,
  };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if ((flag !== '--from' && flag !== '--to') || value === undefined) {
      throw new Error('usage: audit:export -- [--from <position|ISO date>] [--to <position|ISO date>]');
    }
    if (/^\d+$/.test(value)) {
      if (flag === '--from') range.fromPosition = Number(value);
      else range.toPosition = Number(value);
      continue;
    }
    const time = Date.parse(value);
    if (Number.isNaN(time)) throw new Error(`${flag}: "${value}" is neither a position nor an ISO date`);
    if (flag === '--from') range.fromTime = time;
    else range.toTime = time;
  }
  return range;
}

/**
 * The export reads DATA_DIR's SQLite store and archive only: on EventStoreDB it would leave the
 * live events out without a word, so it refuses instead.
 */
export function assertExportableStore(env: Readonly<Record<string, string | undefined>>): void {
  if (env.EVENTSTORE_CONNECTION_STRING) {
    throw new Error(
      'EVENTSTORE_CONNECTION_STRING is set: audit:export reads only the SQLite store and the archive of DATA_DIR, so exporting from EventStoreDB is not supported yet (export its live events with its own tools).',
    );
  }
}

interface Cursor {
  events: RecordedEvent[];
  next: number;
}

/**
 * Every event of the range, live and archived, in position order, one JSON line each (decoded to
 * the current shape, with `source`). Archived segments are opened only when the merge reaches
 * their first position, so memory holds the segments that overlap, not the archive. An event both
 * live and archived (a batch a crash interrupted, before the restart reconciled it) appears once.
 */
export function* exportEvents(dataDir: string, range: ExportRange): Generator<string> {
  const files = new ArchiveFiles(dataDir);
  const pending = segmentsBetween(files.reload(), range.fromPosition, range.toPosition);
  const dbFile = join(dataDir, 'events.sqlite');
  const db = existsSync(dbFile) ? new Database(dbFile, { readonly: true, fileMustExist: true }) : null;
  try {
    const live = db
      ? (db
          .prepare(
            'SELECT position, stream_id, revision, event_id, type, data, metadata FROM events WHERE position >= ? AND position <= ? ORDER BY position',
          )
          .iterate(range.fromPosition, range.toPosition) as IterableIterator<EventRow>)
      : [][Symbol.iterator]();
    let liveNext = live.next();
    let open: Cursor[] = [];
    let lastPosition = 0;
    for (;;) {
      // An exhausted segment's events are let go: only overlapping segments stay in memory.
      open = open.filter((c) => c.next < c.events.length);
      let min = liveNext.done ? Number.POSITIVE_INFINITY : liveNext.value.position;
      for (const c of open) min = Math.min(min, c.events[c.next]!.position);
      if (pending.length > 0 && pending[0]!.segment.firstPosition <= min) {
        const { file, segment } = pending.shift()!;
        const events = files
          .readSegment(file, segment)
          .filter((e) => e.position >= range.fromPosition && e.position <= range.toPosition);
        open.push({ events, next: 0 });
        continue;
      }
      if (min === Number.POSITIVE_INFINITY) break;
      let event: RecordedEvent;
      let source: 'live' | 'archive';
      if (!liveNext.done && liveNext.value.position === min) {
        event = toRecorded(liveNext.value);
        source = 'live';
        liveNext = live.next();
      } else {
        const c = open.find((h) => h.events[h.next]!.position === min)!;
        event = c.events[c.next]!;
        source = 'archive';
      }
      for (const c of open) while (c.next < c.events.length && c.events[c.next]!.position === min) c.next += 1;
      if (min === lastPosition) continue;
      lastPosition = min;
      if (event.metadata.occurredAt < range.fromTime || event.metadata.occurredAt >= range.toTime) continue;
      // What the events API withholds, the export withholds too.
      yield JSON.stringify({ ...auditView(event), source });
    }
  } finally {
    db?.close();
  }
}
