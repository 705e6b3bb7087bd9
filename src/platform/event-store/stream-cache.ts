import type { RecordedEvent } from '../events/envelope';

/** Longer streams are read from the file each time: folding them is the cost, not the read. */
const MAX_CACHED_EVENTS = 256;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/**
 * Bounded LRU of whole streams (their recorded events, frozen: every reader shares them). A stream
 * enters on a read and is extended only by its owner's commits, so a hot aggregate (a refresh token,
 * an install) is decided without touching SQLite; write-once streams are never read and never enter.
 */
export class StreamCache {
  private readonly streams = new Map<string, RecordedEvent[]>();

  constructor(private readonly capacity: number) {}

  has(streamId: string): boolean {
    return this.capacity > 0 && this.streams.has(streamId);
  }

  /** A copy of the cached events (most recently used moves to the back), or undefined. */
  get(streamId: string): RecordedEvent[] | undefined {
    const events = this.streams.get(streamId);
    if (events === undefined) return undefined;
    this.streams.delete(streamId);
    this.streams.set(streamId, events);
    return events.slice();
  }

  /** After a read from the file: the whole stream as stored. Empty streams are not kept. */
  remember(streamId: string, events: RecordedEvent[]): void {
    if (this.capacity <= 0 || events.length === 0 || events.length > MAX_CACHED_EVENTS) return;
    this.streams.delete(streamId);
    this.streams.set(streamId, events.map(deepFreeze));
    if (this.streams.size > this.capacity) this.streams.delete(this.streams.keys().next().value!);
  }

  /** A committed event of a cached stream (events arrive in revision order). */
  appended(event: RecordedEvent): void {
    const events = this.streams.get(event.streamId);
    if (events === undefined) return;
    if (events.length >= MAX_CACHED_EVENTS || events[events.length - 1]!.revision !== event.revision - 1) {
      this.streams.delete(event.streamId);
      return;
    }
    events.push(deepFreeze(event));
  }

  /** A stream whose events left the store (archived): the next read goes to the file. */
  forget(streamId: string): void {
    this.streams.delete(streamId);
  }
}
