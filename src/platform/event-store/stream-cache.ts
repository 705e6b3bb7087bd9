import type { RecordedEvent } from '../events/envelope';

/** Longer streams are read from the file each time: folding them is the cost, not the read. */
const MAX_CACHED_EVENTS = 256;

/** Freezes a recorded event and everything in it (events shared by several readers). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // for…in, not Object.values: no array per object (every event a commit shares comes through here).
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

interface CachedStream {
  events: RecordedEvent[];
  /** Approximate heap bytes of the events (the stored rows' size, see rowBytes). */
  bytes: number;
}

/**
 * Bounded LRU of whole streams (their recorded events, frozen: every reader shares them). A stream
 * enters on a read and is extended only by its owner's commits, so a hot aggregate (a refresh token,
 * an install) is decided without touching SQLite; write-once streams are never read and never enter.
 * Bounded by streams (`capacity`) and by bytes (`maxBytes`): least recently used streams leave
 * until both hold, and a stream larger than a quarter of the bytes is not kept at all (so one
 * huge stream cannot flush every hot one).
 */
export class StreamCache {
  private readonly streams = new Map<string, CachedStream>();
  private total = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Approximate bytes held (tests, metrics). */
  get bytes(): number {
    return this.total;
  }

  has(streamId: string): boolean {
    return this.capacity > 0 && this.streams.has(streamId);
  }

  /** A copy of the cached events (most recently used moves to the back), or undefined. */
  get(streamId: string): RecordedEvent[] | undefined {
    const cached = this.streams.get(streamId);
    if (cached === undefined) return undefined;
    this.streams.delete(streamId);
    this.streams.set(streamId, cached);
    return cached.events.slice();
  }

  /** After a read from the file: the whole stream as stored, and its size. Empty streams are not kept. */
  remember(streamId: string, events: RecordedEvent[], bytes: number): void {
    this.forget(streamId);
    if (this.capacity <= 0 || events.length === 0 || events.length > MAX_CACHED_EVENTS || !this.fits(bytes)) return;
    this.streams.set(streamId, { events: events.map(deepFreeze), bytes });
    this.total += bytes;
    this.evict();
  }

  /** A committed event of a cached stream (events arrive in revision order), and its size. */
  appended(event: RecordedEvent, bytes: number): void {
    const cached = this.streams.get(event.streamId);
    if (cached === undefined) return;
    const { events } = cached;
    if (
      events.length >= MAX_CACHED_EVENTS ||
      events[events.length - 1]!.revision !== event.revision - 1 ||
      !this.fits(cached.bytes + bytes)
    ) {
      this.forget(event.streamId);
      return;
    }
    events.push(deepFreeze(event));
    cached.bytes += bytes;
    this.total += bytes;
    this.evict();
  }

  private fits(bytes: number): boolean {
    return bytes <= this.maxBytes / 4;
  }

  /** Drops a stream (also one whose events left the store, archived: the next read goes to the file). */
  forget(streamId: string): void {
    const cached = this.streams.get(streamId);
    if (cached === undefined) return;
    this.streams.delete(streamId);
    this.total -= cached.bytes;
  }

  /** Least recently used first (the Map's order), until both bounds hold. */
  private evict(): void {
    while (this.streams.size > this.capacity || this.total > this.maxBytes) {
      this.forget(this.streams.keys().next().value!);
    }
  }
}
