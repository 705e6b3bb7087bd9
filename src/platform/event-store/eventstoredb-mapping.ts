import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  type JSONEventData,
  type JSONType,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import { createHash } from 'node:crypto';
import type { EventMetadata, NewEvent, RecordedEvent } from '../events/envelope';
import { ConcurrencyError } from './concurrency-error';
import type { ExpectedRevision } from './event-store.port';

/**
 * Pure translations between our store-neutral port and @eventstore/db-client's shapes (expected
 * revisions, event ids, positions, recorded events), the resubscribe backoff and batching of the
 * live feed: everything of the adapter that runs without a server, unit-tested on its own.
 */

/*
 * Global positions.
 *
 * Our port wants one strictly increasing number per event; ESDB has a (commit, prepare) pair.
 * ASSUMPTION: for ordinary appends (implicit transactions — the only kind the gRPC API can write)
 * the server reports commit === prepare === the event's own log position, so Number(commit) alone
 * identifies an event and converts back to {commit: p, prepare: p}. Only legacy TCP explicit
 * transactions share a commit position between events; we never write those. Number() is exact
 * while the log is below 2^53 bytes (~9 PB).
 */

/** The subset of the client's resolved events we read; structural so tests need no server. */
export interface EsdbResolvedEvent {
  event?: {
    streamId: string;
    type: string;
    isJson: boolean;
    revision: bigint;
    data: unknown;
    metadata: unknown;
    position?: Position;
  };
  commitPosition?: bigint;
}

export const toEsdbExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`expected revision must be a non-negative integer, got ${String(expected)}`);
      }
      return BigInt(expected);
  }
};

/** A revision mismatch as our store-neutral error; null for any other error. */
export const toConcurrencyError = (
  error: unknown,
  streamId: string,
  expected: ExpectedRevision,
): ConcurrencyError | null => {
  const isWrongVersion =
    error instanceof WrongExpectedVersionError ||
    (typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'wrong-expected-version');
  if (!isWrongVersion) return null;
  const actual = (error as { actualVersion?: unknown }).actualVersion;
  const current = typeof actual === 'bigint' && actual >= 0n ? Number(actual) : 'no_stream';
  return new ConcurrencyError(streamId, expected, current);
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Fixed forever: changing it would give re-appended events new ids and break idempotency.
const EVENT_ID_NAMESPACE = Buffer.from('3b0d6a8e5f2c4e7d9a41c6f0b2e8d915', 'hex');

/**
 * ESDB event ids must be UUIDs. Ours usually are; any other id is mapped to a name-based (v5-style)
 * UUID so the mapping is deterministic and re-appends stay idempotent. The original id is kept in
 * our metadata either way.
 */
export const toEsdbEventId = (eventId: string): string => {
  if (UUID_PATTERN.test(eventId)) return eventId.toLowerCase();
  const hash = createHash('sha1').update(EVENT_ID_NAMESPACE).update(eventId, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Data as the JSON body, our metadata object as the JSON metadata, our event id as the ESDB id. */
export const toEventData = (event: NewEvent): JSONEventData => ({
  id: toEsdbEventId(event.metadata.eventId),
  contentType: 'application/json',
  type: event.type,
  data: event.data as JSONType,
  metadata: { ...event.metadata },
});

/** Number(commit), refusing values that are absent (old servers report 2^64-1) or not exact. */
export const toGlobalPosition = (position: Position | undefined): number | undefined => {
  if (!position) return undefined;
  const commit = position.commit;
  if (commit < 0n || commit > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(commit);
};

/** `after` back to an ESDB position (see the assumption above); 0 means the start of $all. */
export const toReadPosition = (after: number): ReadPosition =>
  after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };

/** System events ($-types such as $metadata, $> links) never reach our feed. */
export const isSystemEvent = (streamId: string, type: string): boolean =>
  type.startsWith('$') || streamId.startsWith('$');

const isEnvelopeMetadata = (value: unknown): value is EventMetadata =>
  typeof value === 'object' &&
  value !== null &&
  !(value instanceof Uint8Array) &&
  typeof (value as { eventId?: unknown }).eventId === 'string';

/** Position of a raw read result, whether or not it is one of our events. */
export const rawPosition = (resolved: EsdbResolvedEvent): number | undefined =>
  toGlobalPosition(resolved.event?.position) ??
  (resolved.commitPosition !== undefined
    ? toGlobalPosition({ commit: resolved.commitPosition, prepare: resolved.commitPosition })
    : undefined);

/**
 * Our envelope from an ESDB event. Null for system events and for events this service did not write
 * (not JSON, or metadata without an eventId), so a shared server's other tenants do not break us.
 */
export const toRecordedEvent = (resolved: EsdbResolvedEvent): RecordedEvent | null => {
  const e = resolved.event;
  if (!e || isSystemEvent(e.streamId, e.type) || !e.isJson || !isEnvelopeMetadata(e.metadata)) return null;
  const position = rawPosition(resolved);
  if (position === undefined) {
    throw new EventDecodingError(
      `EventStoreDB did not report the log position of ${e.streamId}@${e.revision} (server 22.6 or later required)`,
    );
  }
  return {
    streamId: e.streamId,
    revision: Number(e.revision),
    position,
    type: e.type,
    data: e.data,
    metadata: e.metadata,
  };
};

/**
 * The position the server reported for an append, when it is certainly our last event's. For a
 * multi-event append the reported value may be the transaction's first record, and idempotent
 * replays may report none, so those are read back instead.
 */
export const reportedAppendPosition = (result: EsdbAppendResult, eventCount: number): number | undefined => {
  if (eventCount !== 1) return undefined;
  const position = toGlobalPosition(result.position);
  return position !== undefined && position > 0 ? position : undefined;
};

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 5000 };

/** Delay before resubscribe attempt `attempt` (0-based): initial, doubled each time, capped. */
export const backoffDelay = (attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number => {
  const n = attempt > 0 ? Math.min(Math.floor(attempt), 30) : 0; // NaN and negatives count as the first
  return Math.min(options.maxMs, options.initialMs * 2 ** n);
};

/** The part of an object-mode Readable that inBatches uses (the client's stream types are not `Readable`-assignable). */
export interface BatchSource extends AsyncIterable<unknown> {
  read(): unknown;
}

/**
 * Batches from an object-mode stream: waits (for await) for one item, then takes whatever is
 * already buffered, so a catch-up burst arrives as a few large batches instead of one per event.
 */
export async function* inBatches<T>(source: BatchSource, maxBatch: number): AsyncGenerator<T[]> {
  for await (const first of source) {
    const batch: T[] = [first as T];
    while (batch.length < maxBatch) {
      const next = source.read() as T | null;
      if (next === null) break;
      batch.push(next);
    }
    yield batch;
  }
}

/** The client's error type (`error.type`) or gRPC status (`error.code`), whichever it carries. */
const errorType = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
};

const errorCode = (error: unknown): number | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
};

/** An error's message, or the thrown value as text. */
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** gRPC OUT_OF_RANGE: how the server answers a read or subscription from a position that is no record's. */
const GRPC_OUT_OF_RANGE = 11;

/** A read or subscription from a position that is not a record of this store's log. */
export const isInvalidPosition = (error: unknown): boolean =>
  errorCode(error) === GRPC_OUT_OF_RANGE || /invalid position/i.test(errorText(error));

/** Raised by the adapter when an event of ours cannot be decoded: retrying cannot help. */
export class EventDecodingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventDecodingError';
  }
}

/**
 * Errors after which an append may or may not have been written: the call timed out, the
 * connection dropped, or the client's own machinery broke mid-call. Event ids are deterministic
 * and expected revisions exact, so the same append is sent again to learn which.
 */
export const isUnknownAppendOutcome = (error: unknown): boolean => {
  switch (errorType(error)) {
    case 'deadline-exceeded':
    case 'unavailable':
    case 'timeout':
    case 'cancelled':
    case 'not-leader':
    case 'unknown':
      return true;
    case undefined:
      break;
    default:
      return false; // the server's definite refusals (access denied, too large, ...)
  }
  // Raw gRPC statuses (DEADLINE_EXCEEDED 4, UNAVAILABLE 14, CANCELLED 1, ABORTED 10, UNKNOWN 2, INTERNAL 13)
  const code = errorCode(error);
  if (code !== undefined) return [1, 2, 4, 10, 13, 14].includes(code);
  // No type, no code: a socket error or a TypeError from the client's internals.
  return !(error instanceof RangeError);
};

export type SubscriptionFailure = 'transient' | 'fatal';

/**
 * Whether resubscribing can help. Not when the server refuses us ($all needs admin rights by
 * default), the position is not one of this log's, or an event cannot be decoded: those would
 * fail the same way forever, so the feed stops and readiness says why.
 */
export const classifySubscriptionError = (error: unknown): SubscriptionFailure => {
  if (error instanceof EventDecodingError || error instanceof SyntaxError) return 'fatal';
  if (isInvalidPosition(error)) return 'fatal';
  switch (errorType(error)) {
    case 'access-denied':
    case 'invalid-argument':
    case 'stream-deleted':
    case 'unsupported':
      return 'fatal';
    default:
      return errorCode(error) === 16 || errorCode(error) === 7 ? 'fatal' : 'transient'; // UNAUTHENTICATED, PERMISSION_DENIED
  }
};
