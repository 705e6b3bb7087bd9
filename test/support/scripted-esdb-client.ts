import {
  AccessDeniedError,
  DeadlineExceededError,
  END,
  START,
  UnavailableError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type AppendResult,
  type Credentials,
  type Filter,
  type JSONEventData,
  type ReadPosition,
  type ReadRevision,
} from '@eventstore/db-client';
import { PassThrough, Transform } from 'node:stream';
import type { EsdbClient, EsdbReadable, EsdbSubscription } from '../../src/platform/event-store/eventstoredb-client';
import type { EsdbResolvedEvent } from '../../src/platform/event-store/eventstoredb-mapping';

/*
 * A scripted stand-in for the calls the EventStoreDB adapter makes on @eventstore/db-client 6.2.1:
 * an in-memory log with the server's append rules (expected revisions, idempotency by event id,
 * a partly repeated batch refused) and byte-like, non-dense positions, plus scripts for what a
 * real connection does under faults: replies lost after a commit, errors, dropped subscriptions,
 * reads that hang, a dispose that ends open reads as if they were complete (what 6.2.1 does: a
 * client cancellation ends the stream without an error). It is not a server: the EventStoreDB
 * contract still runs only against a real one.
 */

interface LogRecord {
  streamId: string;
  revision: number;
  position: number;
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
}

/** What the next append call does. */
export type AppendStep =
  | { kind: 'ok' }
  /** Writes, then the reply is lost with this error (the outcome the caller cannot know). */
  | { kind: 'commit-then-fail'; error: Error }
  /** Fails before writing. */
  | { kind: 'fail'; error: Error };

export const unavailable = (message = 'connection dropped') => new UnavailableError(undefined, message);
export const deadlineExceeded = (message = 'deadline exceeded') => new DeadlineExceededError(undefined, message);
export const accessDenied = (message = 'Access denied to $all') => new AccessDeniedError(undefined, message);
/** How the server refuses a read from a position that is no record's (gRPC OUT_OF_RANGE). */
export const invalidPosition = () => Object.assign(new Error('Invalid position.'), { code: 11 });

type Readable = PassThrough & EsdbReadable;

/** A checkpoint response on its way through a subscription stream. */
class Checkpoint {
  constructor(readonly position: number) {}
}

interface ScriptedSubscription {
  stream: Readable;
  after: number;
  filter?: RegExp;
  /** Records its filter left out so far. */
  filteredOut: number;
}

export class ScriptedEsdbClient implements EsdbClient {
  readonly log: LogRecord[] = [];
  readonly appendCalls: Array<{ streamId: string; credentials?: Credentials }> = [];
  /** Every readAll call: its direction and how many records it served. */
  readonly readAllCalls: Array<{ direction: 'forwards' | 'backwards'; served: number }> = [];
  readonly subscribeCalls: Array<{ fromPosition: ReadPosition; filter?: Filter; highWaterMark?: number }> = [];
  /** Steps for the next append calls, in order; then every call is 'ok'. */
  readonly appendScript: AppendStep[] = [];
  /** Steps for the next append to a stream that matches, ahead of appendScript. */
  readonly streamFaults: Array<{ match: (streamId: string) => boolean; step: AppendStep }> = [];
  /** Errors the next subscriptions fail with right after they open. */
  readonly subscribeFailures: Error[] = [];
  /** The next this-many reads never answer. */
  stallReads = 0;
  /** Subscriptions are confirmed by the "server" unless this is false. */
  confirmSubscriptions = true;
  /**
   * Filtered subscriptions report a checkpoint after every this-many records their filter left
   * out (0: never), through the filter's checkpointReached, in stream order as 6.2.1 does.
   */
  checkpointEvery = 0;
  /**
   * Which position a checkpoint names (6.2.1 does not say): the last record scanned, or the next
   * one to scan (at the end of the log: where the next record will be written).
   */
  checkpointNames: 'last-scanned' | 'next-to-scan' = 'last-scanned';
  /** A subscription from p repeats the record at p (true) or starts after it (false). */
  subscriptionsRepeatStart = true;
  /** Events are served without a log position (as servers before 22.6 did). */
  positionsUnreported = false;
  /** Appends that fail while disrupted: each alternately commits first or not. */
  private disruptedAppends = 0;
  private disruptCounter = 0;
  private pendingAppends = 0;
  private nextPosition = 1000;
  private readonly streams = new Map<string, LogRecord[]>();
  private readonly open = new Set<Readable>();
  private readonly subscriptions = new Set<ScriptedSubscription>();
  /** Reads are paused after this many items each until resumeReads() (null: not paused). */
  private pauseAfter: number | null = null;
  private readonly paused: Array<() => void> = [];
  disposed = false;

  /**
   * Drops every open subscription with UNAVAILABLE and makes the replies of the appends in flight
   * and of the next `appends` ones fail, every other one after committing.
   */
  disrupt(appends = 0): void {
    this.disruptedAppends += this.pendingAppends + appends;
    for (const sub of [...this.subscriptions]) sub.stream.destroy(unavailable('stream reset by the disruption'));
  }

  /** Writes an event of another writer (e.g. a system event) straight into the log. */
  writeForeign(streamId: string, type: string): void {
    this.commit(streamId, [{ id: crypto.randomUUID(), type, data: {}, metadata: {} } as unknown as JSONEventData]);
  }

  pauseReadsAfter(items: number): void {
    this.pauseAfter = items;
  }

  /** Reads waiting at the pause. */
  get pausedReads(): number {
    return this.paused.length;
  }

  resumeReads(): void {
    this.pauseAfter = null;
    for (const resume of this.paused.splice(0)) resume();
  }

  appendToStream(
    streamId: string,
    events: JSONEventData[],
    options: { expectedRevision: AppendExpectedRevision; credentials?: Credentials },
  ): Promise<AppendResult> {
    this.appendCalls.push({ streamId, ...(options.credentials ? { credentials: options.credentials } : {}) });
    const targeted = this.streamFaults.findIndex((f) => f.match(streamId));
    const scripted =
      targeted >= 0 ? this.streamFaults.splice(targeted, 1)[0]!.step : (this.appendScript.shift() ?? { kind: 'ok' });
    this.pendingAppends += 1;
    return new Promise((resolve, reject) => {
      // Replies arrive on a later turn, as they do over the network; a disruption meanwhile hits them.
      setImmediate(() => {
        this.pendingAppends -= 1;
        let step = scripted;
        if (step.kind === 'ok' && this.disruptedAppends > 0) {
          this.disruptedAppends -= 1;
          const error = unavailable('connection reset during the append');
          step = this.disruptCounter++ % 2 === 0 ? { kind: 'commit-then-fail', error } : { kind: 'fail', error };
        }
        if (step.kind === 'fail') return reject(step.error);
        let result: AppendResult;
        try {
          result = this.decideAppend(streamId, events, options.expectedRevision);
        } catch (error) {
          return reject(error as Error);
        }
        if (step.kind === 'commit-then-fail') return reject(step.error);
        resolve(result);
      });
    });
  }

  /** The server's rules: idempotent when the batch is already at the expected place, else revision checks. */
  private decideAppend(streamId: string, events: JSONEventData[], expected: AppendExpectedRevision): AppendResult {
    const stream = this.streams.get(streamId) ?? [];
    const current = stream.length - 1;
    const start =
      expected === 'no_stream' ? 0 : typeof expected === 'bigint' ? Number(expected) + 1 : expected === 'any' ? -1 : -1;
    const at = start >= 0 ? start : stream.findIndex((r) => r.id === events[0]!.id); // 'any': found anywhere
    if (at >= 0 && at <= current && stream[at]!.id === events[0]!.id) {
      const all = events.every((e, i) => stream[at + i]?.id === e.id);
      if (all) {
        const last = stream[at + events.length - 1]!;
        // Idempotent: the original revision; the server reports no position for it.
        return { success: true, nextExpectedRevision: BigInt(last.revision), position: undefined };
      }
      throw this.wrongVersion(streamId, expected, current);
    }
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current < 0) ||
      (expected === 'stream_exists' && current >= 0) ||
      (typeof expected === 'bigint' && Number(expected) === current);
    if (!ok) throw this.wrongVersion(streamId, expected, current);
    const written = this.commit(streamId, events);
    const last = written[written.length - 1]!;
    // Like the server: a multi-event append reports its first record's position.
    const reported = written[0]!.position;
    return {
      success: true,
      nextExpectedRevision: BigInt(last.revision),
      position: { commit: BigInt(reported), prepare: BigInt(reported) },
    };
  }

  private wrongVersion(streamId: string, expected: AppendExpectedRevision, current: number) {
    return new WrongExpectedVersionError(undefined, {
      streamName: streamId,
      current: current >= 0 ? BigInt(current) : 'no_stream',
      expected: expected as never,
    });
  }

  private commit(streamId: string, events: JSONEventData[]): LogRecord[] {
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    const written = events.map((e) => {
      const record: LogRecord = {
        streamId,
        revision: stream.length,
        position: this.nextPosition,
        id: e.id!,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
      };
      // Byte offsets: gaps of varying size between records.
      this.nextPosition += 100 + JSON.stringify(e.data ?? null).length;
      stream.push(record);
      this.log.push(record);
      return record;
    });
    for (const sub of this.subscriptions) this.pushTo(sub, written);
    return written;
  }

  private resolved(r: LogRecord): EsdbResolvedEvent & { event: { id: string } } {
    return {
      event: {
        id: r.id,
        streamId: r.streamId,
        type: r.type,
        isJson: true,
        revision: BigInt(r.revision),
        data: r.data,
        metadata: r.metadata,
        position: this.positionsUnreported
          ? { commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n }
          : { commit: BigInt(r.position), prepare: BigInt(r.position) },
      },
    };
  }

  private readable(highWaterMark = 16, transform?: Transform): Readable {
    const stream = (transform ?? new PassThrough({ objectMode: true, highWaterMark })) as Readable;
    this.open.add(stream);
    stream.on('close', () => this.open.delete(stream));
    return stream;
  }

  /** Serves `records` on a new read stream, honouring stalls and pauses. */
  private serve(records: LogRecord[], error?: Error): EsdbReadable {
    const stream = this.readable();
    if (this.stallReads > 0) {
      this.stallReads -= 1;
      return stream;
    }
    const pauseAfter = this.pauseAfter;
    void (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < records.length; i++) {
        if (pauseAfter !== null && i === pauseAfter) await new Promise<void>((resolve) => this.paused.push(resolve));
        if (stream.destroyed || this.disposed) return;
        stream.write(this.resolved(records[i]!));
      }
      if (error) stream.destroy(error);
      else stream.end();
    })();
    return stream;
  }

  readStream(
    streamId: string,
    options: { fromRevision?: ReadRevision; maxCount?: number; direction?: 'forwards' | 'backwards' },
  ): EsdbReadable {
    const stream = this.streams.get(streamId);
    if (!stream) return this.serve([], Object.assign(new Error(`${streamId} not found`), { type: 'stream-not-found' }));
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const from = options.fromRevision ?? (options.direction === 'backwards' ? END : START);
    if (options.direction === 'backwards') {
      const top = from === END ? stream.length - 1 : from === START ? -1 : Number(from);
      return this.serve(
        stream
          .slice(0, top + 1)
          .reverse()
          .slice(0, max),
      );
    }
    const low = from === START ? 0 : from === END ? stream.length : Number(from);
    return this.serve(stream.slice(low, low + max));
  }

  readAll(options: {
    fromPosition?: ReadPosition;
    maxCount?: number;
    direction?: 'forwards' | 'backwards';
  }): EsdbReadable {
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const from = options.fromPosition ?? (options.direction === 'backwards' ? END : START);
    if (typeof from === 'object' && !this.log.some((r) => r.position === Number(from.commit))) {
      return this.serve([], invalidPosition());
    }
    if (options.direction === 'backwards') {
      const below =
        from === END ? this.log : from === START ? [] : this.log.filter((r) => r.position < Number(from.commit));
      const served = [...below].reverse().slice(0, max);
      this.readAllCalls.push({ direction: 'backwards', served: served.length });
      return this.serve(served);
    }
    // Forward reads include the record at the position.
    const rest =
      from === START ? this.log : from === END ? [] : this.log.filter((r) => r.position >= Number(from.commit));
    const served = rest.slice(0, max);
    this.readAllCalls.push({ direction: 'forwards', served: served.length });
    return this.serve(served);
  }

  subscribeToAll(
    options: { fromPosition: ReadPosition; filter?: Filter },
    readableOptions: { highWaterMark?: number } = {},
  ): EsdbSubscription {
    this.subscribeCalls.push({ ...options, ...readableOptions });
    const checkpointReached = options.filter?.checkpointReached;
    // Like 6.2.1's Subscription: a Transform that awaits checkpointReached before the next response.
    const transform = new Transform({
      objectMode: true,
      highWaterMark: readableOptions.highWaterMark ?? 16,
      transform(item: unknown, _encoding, next) {
        if (!(item instanceof Checkpoint)) return next(null, item);
        const position = { commit: BigInt(item.position), prepare: BigInt(item.position) };
        Promise.resolve(checkpointReached?.(this as never, position)).then(() => next(), next);
      },
    });
    const stream = this.readable(undefined, transform) as Readable & EsdbSubscription;
    stream.unsubscribe = () => Promise.resolve();
    const from = options.fromPosition;
    const regex = options.filter && 'regex' in options.filter ? new RegExp(options.filter.regex) : undefined;
    const sub: ScriptedSubscription = {
      stream,
      after: from === START ? 0 : from === END ? Number.MAX_SAFE_INTEGER : Number(from.commit),
      filter: regex,
      filteredOut: 0,
    };
    const failure = this.subscribeFailures.shift();
    setImmediate(() => {
      if (stream.destroyed) return;
      if (failure) return void stream.destroy(failure);
      if (typeof from === 'object' && !this.log.some((r) => r.position === Number(from.commit))) {
        return void stream.destroy(invalidPosition());
      }
      // The server confirms before it sends anything; an unconfirmed subscription hangs.
      if (!this.confirmSubscriptions) return;
      stream.emit('confirmation');
      this.subscriptions.add(sub);
      stream.on('close', () => this.subscriptions.delete(sub));
      // Subscriptions start after the given position (the server may repeat it; the adapter skips it).
      this.pushTo(
        sub,
        this.log.filter((r) => (this.subscriptionsRepeatStart ? r.position >= sub.after : r.position > sub.after)),
      );
    });
    return stream;
  }

  private pushTo(sub: ScriptedSubscription, records: LogRecord[]): void {
    for (const r of records) {
      if (sub.stream.destroyed) return;
      if (sub.filter && !sub.filter.test(r.type)) {
        if (this.checkpointEvery > 0 && ++sub.filteredOut % this.checkpointEvery === 0) {
          const next = this.log[this.log.indexOf(r) + 1]?.position ?? this.nextPosition;
          sub.stream.write(new Checkpoint(this.checkpointNames === 'last-scanned' ? r.position : next));
        }
        continue;
      }
      sub.stream.write(this.resolved(r));
    }
  }

  /** Like 6.2.1: the channel closes and open calls end as cancelled by the client, i.e. without an error. */
  dispose(): Promise<void> {
    this.disposed = true;
    for (const stream of [...this.open]) stream.end();
    return Promise.resolve();
  }
}
