import type { EventRow } from './sqlite-event-store';

/**
 * The newest committed events, as stored rows, in position order. Every event committed after
 * `floor` is here (the owner adds each one after its commit), so a read of the whole feed after a
 * position at or past `floor` is answered from memory exactly as the file would answer it.
 * Holds between `capacity` and twice that many events; 0 turns it off.
 */
export class LiveTail {
  private rows: EventRow[] = [];
  private floor = Number.POSITIVE_INFINITY;

  constructor(private readonly capacity: number) {}

  /** Everything up to `head` is in the file only; from here on every commit is added. */
  startAfter(head: number): void {
    if (this.capacity <= 0) return;
    this.rows = [];
    this.floor = head;
  }

  /** A committed event; events arrive in position order. */
  committed(row: EventRow): void {
    if (this.capacity <= 0) return;
    this.rows.push(row);
    if (this.rows.length >= 2 * this.capacity) {
      const drop = this.rows.length - this.capacity;
      this.floor = this.rows[drop - 1]!.position;
      this.rows = this.rows.slice(drop);
    }
  }

  /** Up to `limit` events after `position`, or undefined when memory does not reach back that far. */
  after(position: number, limit: number): EventRow[] | undefined {
    if (position < this.floor) return undefined;
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rows[mid]!.position <= position) lo = mid + 1;
      else hi = mid;
    }
    return this.rows.slice(lo, lo + limit);
  }
}
