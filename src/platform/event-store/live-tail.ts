import type { RecordedEvent } from '../events/envelope';
import { toFrozenRecorded, toRecorded, type EventRow } from './sqlite-row-format';

/**
 * Approximate heap bytes of one stored row: its strings (two bytes a character, V8's worst case)
 * and a fixed allowance for the row object. Caches are bounded by this sum, so a few huge events
 * cost as much room as many small ones.
 */
export function rowBytes(row: Pick<EventRow, 'stream_id' | 'event_id' | 'type' | 'data' | 'metadata'>): number {
  return (
    2 * (row.stream_id.length + row.event_id.length + row.type.length + row.data.length + row.metadata.length) + 96
  );
}

/** Index of the first item past `position` in items sorted by position (binary search). */
export function firstAfter(items: readonly { position: number }[], position: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.position <= position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The newest committed events, as stored rows, in position order. Every event committed after
 * `floor` is here (the owner adds each one after its commit), so a read of the whole feed after a
 * position at or past `floor` is answered from memory exactly as the file would answer it.
 * Holds between `capacity` and twice that many events, and at most `maxBytes` of them (see
 * rowBytes): past either bound the oldest go, down to half the bytes, so trimming is amortised
 * O(1) per event. A capacity or byte bound of 0 turns it off.
 *
 * The newest commit's events are also kept as recorded events once a reader asked for them,
 * frozen and shared: every reader of the whole feed (the projections, each reactor, a console
 * tail) reads a commit right after it, and each used to parse the same rows again. They are
 * released at the next commit, so they cost memory for one commit only.
 */
export class LiveTail {
  private rows: EventRow[] = [];
  private sizes: number[] = [];
  private total = 0;
  private floor = Number.POSITIVE_INFINITY;
  /** Recorded events of the rows after `sharedAfter` (the newest commit), by position. */
  private shared = new Map<number, RecordedEvent>();
  private sharedAfter = Number.POSITIVE_INFINITY;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  private get off(): boolean {
    return this.capacity <= 0 || this.maxBytes <= 0;
  }

  /** Approximate bytes held (tests, metrics). */
  get bytes(): number {
    return this.total;
  }

  /** Everything up to `head` is in the file only; from here on every commit is added. */
  startAfter(head: number): void {
    if (this.off) return;
    this.rows = [];
    this.sizes = [];
    this.total = 0;
    this.floor = head;
    this.shared = new Map();
    this.sharedAfter = head;
  }

  /** The rows of a new commit follow: the previous commit's shared events are let go. */
  newCommit(): void {
    if (this.off) return;
    if (this.shared.size > 0) this.shared = new Map();
    this.sharedAfter = this.rows.length > 0 ? this.rows[this.rows.length - 1]!.position : this.floor;
  }

  /** A committed event; events arrive in position order. */
  committed(row: EventRow): void {
    if (this.off) return;
    const size = rowBytes(row);
    this.rows.push(row);
    this.sizes.push(size);
    this.total += size;
    if (this.rows.length >= 2 * this.capacity || this.total > this.maxBytes) this.trim();
  }

  private trim(): void {
    let drop = Math.max(0, this.rows.length - this.capacity);
    let kept = this.total;
    for (let i = 0; i < drop; i++) kept -= this.sizes[i]!;
    while (drop < this.rows.length && kept > this.maxBytes / 2) kept -= this.sizes[drop++]!;
    if (drop === 0) return;
    this.floor = this.rows[drop - 1]!.position;
    this.rows = this.rows.slice(drop);
    this.sizes = this.sizes.slice(drop);
    this.total = kept;
  }

  /** Up to `limit` events after `position`, or undefined when memory does not reach back that far. */
  after(position: number, limit: number): EventRow[] | undefined {
    if (position < this.floor) return undefined;
    const from = firstAfter(this.rows, position);
    return this.rows.slice(from, from + limit);
  }

  /** As `after`, as recorded events: those of the newest commit made once and shared (frozen). */
  recordedAfter(position: number, limit: number): RecordedEvent[] | undefined {
    const rows = this.after(position, limit);
    if (rows === undefined) return undefined;
    return rows.map((row) => {
      if (row.position <= this.sharedAfter) return toRecorded(row);
      let event = this.shared.get(row.position);
      if (event === undefined) {
        event = toFrozenRecorded(row);
        this.shared.set(row.position, event);
      }
      return event;
    });
  }
}
