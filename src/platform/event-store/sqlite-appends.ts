import type { EventMetadata, NewEvent } from '../events/envelope';
import { ConcurrencyError } from './concurrency-error';
import type { AppendResult, ExpectedRevision } from './event-store.port';
import { packMetadata, type EventRow } from './sqlite-row-format';
import type { WireAppend, WireOutcome } from './sqlite-writer';
import { storageFaultOf } from './storage-fault';

/**
 * An append as it crosses to the writer thread: data and metadata already the text stored. Throws
 * on data JSON cannot hold (a BigInt), before anything is sent.
 */
export function wireAppendOf(streamId: string, events: readonly NewEvent[], expected: ExpectedRevision): WireAppend {
  if (events.length === 0) throw new Error('append needs at least one event');
  return {
    streamId,
    expected,
    events: events.map((e) => ({
      type: e.type,
      eventId: e.metadata.eventId,
      data: JSON.stringify(e.data),
      metadata: packMetadata(e.metadata),
    })),
  };
}

/** A writer's failure as the port's error: a storage fault (full, read-only, I/O) keeps its type. */
export const writerError = (message: string, code: string | undefined): Error =>
  storageFaultOf({ code, message }) ?? new Error(message);

/** What an append's caller gets for the writer's outcome: its result, or the error to reject with. */
export function appendAnswer(a: WireAppend, outcome: WireOutcome): AppendResult | Error {
  if (outcome.ok) return { nextExpectedRevision: outcome.nextExpectedRevision, position: outcome.position };
  if ('conflict' in outcome) return new ConcurrencyError(a.streamId, a.expected, outcome.conflict.actual);
  return writerError(outcome.message, outcome.code);
}

/**
 * The rows an append wrote, as a read of the file gives them (none for a refusal or a replay);
 * `appended`: each event's metadata as readBackMetadata made it, when this thread appended them.
 */
export function writtenRows(
  a: WireAppend,
  outcome: WireOutcome,
  appended?: ReadonlyArray<Readonly<EventMetadata> | undefined>,
): EventRow[] {
  if (!outcome.ok || outcome.positions.length === 0) return [];
  const first = outcome.nextExpectedRevision - a.events.length + 1;
  return a.events.map((e, j) => {
    const row: EventRow = {
      position: outcome.positions[j]!,
      stream_id: a.streamId,
      revision: first + j,
      event_id: e.eventId,
      type: e.type,
      data: e.data,
      metadata: e.metadata,
    };
    const metadata = appended?.[j];
    if (metadata) row.appended = metadata;
    return row;
  });
}
