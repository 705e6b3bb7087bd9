/*
 * The in-memory log of the EventStoreDB stand-in: streams, $all, expected revisions, idempotent
 * appends and stream metadata, following EventStoreDB's documented semantics. A test tool, not the
 * engine: no disk, no cluster, no scavenge, no projections.
 *
 * Written with erasable TypeScript only (no enums, no parameter properties): `npm run esdb:standin`
 * runs these files with Node's own type stripping.
 */

/** One record of the log. Every record is its own implicit transaction: commit === prepare === position. */
export interface StoredRecord {
  streamId: string;
  revision: number;
  position: number;
  id: string;
  type: string;
  contentType: string;
  data: Buffer;
  metadata: Buffer;
  /** .NET ticks (100 ns) since the Unix epoch, as the server's `created` metadata. */
  created: bigint;
}

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Buffer;
  metadata: Buffer;
}

export type ExpectedRevision =
  { kind: 'any' } | { kind: 'no_stream' } | { kind: 'stream_exists' } | { kind: 'revision'; revision: number };

export type AppendOutcome =
  /** `position` is null for an idempotent replay (the server reports none then). */
  { ok: true; currentRevision: number; position: number | null } | { ok: false; current: number | null };

export type StreamFrom = 'start' | 'end' | number;
export type AllFrom = 'start' | 'end' | number;

/** The log starts past a header, like a real chunk file: position 0 is never a record. */
const FIRST_POSITION = 256;
const TICKS_PER_MS = 10_000n;

/** Positions are byte offsets: each record takes its size, so positions are sparse and grow like a log. */
const recordSize = (streamId: string, e: ProposedEvent): number =>
  96 + Buffer.byteLength(streamId) + Buffer.byteLength(e.type) + e.data.length + e.metadata.length;

export const metastreamOf = (streamId: string): string => `$$${streamId}`;

export class StandInLog {
  readonly records: StoredRecord[] = [];
  private readonly streams = new Map<string, StoredRecord[]>();
  private readonly byPosition = new Map<number, number>();
  private nextPosition = FIRST_POSITION;
  private readonly listeners = new Set<(written: StoredRecord[]) => void>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    // A fresh server's log already holds system records before any user event.
    this.commit('$users', [systemEvent('$User', { loginName: 'admin' })]);
    this.commit('$user-admin', [systemEvent('$UserCreated', { loginName: 'admin' })]);
  }

  /** Where the next record will be written (a valid read position: reads from it return nothing). */
  get endPosition(): number {
    return this.nextPosition;
  }

  onCommit(listener: (written: StoredRecord[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * An append with EventStoreDB's rules: a batch whose ids are already in the stream at the
   * expected place is an idempotent success with the original revision; a batch that repeats
   * only some of them, or an expected revision that does not hold, is WrongExpectedVersion.
   */
  append(streamId: string, events: ProposedEvent[], expected: ExpectedRevision): AppendOutcome {
    const stream = this.streams.get(streamId) ?? [];
    const current = stream.length > 0 ? stream.length - 1 : null;
    const first = events[0];
    if (!first) return { ok: true, currentRevision: current ?? -1, position: null };
    const start = expected.kind === 'no_stream' ? 0 : expected.kind === 'revision' ? expected.revision + 1 : undefined;
    const at = start ?? stream.findIndex((r) => r.id === first.id);
    if (at >= 0 && at < stream.length && stream[at]!.id === first.id) {
      if (events.every((e, i) => stream[at + i]?.id === e.id)) {
        return { ok: true, currentRevision: at + events.length - 1, position: null };
      }
      return { ok: false, current };
    }
    const holds =
      expected.kind === 'any' ||
      (expected.kind === 'no_stream' && current === null) ||
      (expected.kind === 'stream_exists' && current !== null) ||
      (expected.kind === 'revision' && expected.revision === current);
    if (!holds) return { ok: false, current };
    const written = this.commit(streamId, events);
    // The position of the append's transaction: its first record.
    return { ok: true, currentRevision: written[written.length - 1]!.revision, position: written[0]!.position };
  }

  private commit(streamId: string, events: ProposedEvent[]): StoredRecord[] {
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    const created = BigInt(this.now()) * TICKS_PER_MS;
    const written = events.map((e) => {
      const record: StoredRecord = {
        streamId,
        revision: stream.length,
        position: this.nextPosition,
        id: e.id,
        type: e.type,
        contentType: e.contentType,
        data: e.data,
        metadata: e.metadata,
        created,
      };
      this.nextPosition += recordSize(streamId, e);
      stream.push(record);
      this.byPosition.set(record.position, this.records.length);
      this.records.push(record);
      return record;
    });
    for (const listener of [...this.listeners]) listener(written);
    return written;
  }

  /** Stream metadata in force ($tb, $maxAge) from the last `$metadata` event of the metastream. */
  private metadataOf(streamId: string): { truncateBefore: number; maxAgeSeconds: number | null } {
    const meta = this.streams.get(metastreamOf(streamId));
    const last = meta?.[meta.length - 1];
    if (!last || last.type !== '$metadata') return { truncateBefore: 0, maxAgeSeconds: null };
    try {
      const parsed = JSON.parse(last.data.toString('utf8')) as { $tb?: unknown; $maxAge?: unknown };
      return {
        truncateBefore: typeof parsed.$tb === 'number' ? parsed.$tb : 0,
        maxAgeSeconds: typeof parsed.$maxAge === 'number' ? parsed.$maxAge : null,
      };
    } catch {
      return { truncateBefore: 0, maxAgeSeconds: null };
    }
  }

  /**
   * A stream's records, `count` at most, from a revision (inclusive) in either direction, with
   * `$tb` and `$maxAge` applied as reads see them. 'not-found' when the stream has never had one.
   */
  readStream(streamId: string, from: StreamFrom, backwards: boolean, count: number): StoredRecord[] | 'not-found' {
    const stream = this.streams.get(streamId);
    if (!stream || stream.length === 0) return 'not-found';
    const { truncateBefore, maxAgeSeconds } = this.metadataOf(streamId);
    const oldest = maxAgeSeconds === null ? null : BigInt(this.now() - maxAgeSeconds * 1000) * TICKS_PER_MS;
    const visible = (r: StoredRecord) => r.revision >= truncateBefore && (oldest === null || r.created >= oldest);
    const out: StoredRecord[] = [];
    if (backwards) {
      const top = from === 'end' ? stream.length - 1 : from === 'start' ? 0 : Math.min(from, stream.length - 1);
      for (let i = top; i >= 0 && out.length < count; i--) if (visible(stream[i]!)) out.push(stream[i]!);
    } else {
      const low = from === 'start' ? 0 : from === 'end' ? stream.length : from;
      for (let i = low; i < stream.length && out.length < count; i++) if (visible(stream[i]!)) out.push(stream[i]!);
    }
    return out;
  }

  /** Whether reads and subscriptions may start at `position`: a record's, the start or the end. */
  isValidPosition(position: number): boolean {
    return position === 0 || position === this.nextPosition || this.byPosition.has(position);
  }

  /** Index of the first record at or after `position` (a valid one). */
  indexAt(position: number): number {
    return position >= this.nextPosition ? this.records.length : (this.byPosition.get(position) ?? 0);
  }

  /**
   * $all: forwards from a position includes the record there; backwards from a position starts
   * below it. 'invalid-position' for a position that is no record's boundary.
   */
  readAll(from: AllFrom, backwards: boolean, count: number): StoredRecord[] | 'invalid-position' {
    if (typeof from === 'number' && !this.isValidPosition(from)) return 'invalid-position';
    if (backwards) {
      const below = from === 'end' ? this.records.length : from === 'start' ? 0 : this.indexAt(from);
      return this.records.slice(Math.max(0, below - count), below).reverse();
    }
    const low = from === 'start' ? 0 : from === 'end' ? this.records.length : this.indexAt(from);
    return this.records.slice(low, low + count);
  }
}

function systemEvent(type: string, data: unknown): ProposedEvent {
  return {
    id: crypto.randomUUID(),
    type,
    contentType: 'application/json',
    data: Buffer.from(JSON.stringify(data)),
    metadata: Buffer.alloc(0),
  };
}
