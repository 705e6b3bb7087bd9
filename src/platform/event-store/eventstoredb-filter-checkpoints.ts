import { excludeSystemEvents, type Filter, type Position } from '@eventstore/db-client';
import { toGlobalPosition } from './eventstoredb-mapping';

/*
 * Filter checkpoints of a subscription to $all, so a resubscribe does not rescan what the server
 * already filtered out (system events: $statistics, $metadata, links) since our last event.
 *
 * How 6.2.1 reports them: subscribeToAll with a filter sends `checkpointIntervalMultiplier`
 * (dist/streams/subscribeToAll.js) and hands its `checkpointReached` to the Subscription, a
 * Transform whose `_transform` (dist/streams/utils/Subscription.js) awaits the callback for a
 * checkpoint response before it handles the next response. So when we push a marker from the
 * callback, it sits in the stream after every event the server sent before the checkpoint: once
 * we have yielded everything up to the marker, every event of ours below the checkpoint has been
 * delivered.
 *
 * What 6.2.1 does not tell us: whether the checkpoint names the last record scanned or the next
 * one to scan, and whether a subscription from a position repeats the record there. Both cannot
 * be checked without a server, so the resume point is chosen to be safe under every combination
 * (see safeResumePosition): a checkpoint is only used after reading the record at it and seeing
 * that it is not ours.
 */

/** A checkpoint, in stream order among the events (pushed by the filter's callback). */
export class FilterCheckpoint {
  constructor(readonly position: number) {}
}

/** Our subscription filter (no system events), with checkpoints pushed into the stream as markers. */
export const subscriptionFilter = (): Filter =>
  excludeSystemEvents({
    checkpointReached: (subscription, position: Position) => {
      // Only an exact position of one record (commit === prepare, as for every event we write).
      const at = position.commit === position.prepare ? toGlobalPosition(position) : undefined;
      if (at !== undefined)
        (subscription as unknown as { push(chunk: unknown): boolean }).push(new FilterCheckpoint(at));
    },
  });

/**
 * Where to resubscribe after `delivered` (the last event handed out), given `checkpoint`, a
 * checkpoint whose earlier events were all handed out. `recordAt(p)` is our verdict on the record
 * at p: 'ours' (we would deliver it), 'not-ours' (filtered out or another writer's), or 'unknown'.
 *
 * Resuming from the checkpoint c is safe when the record at c is not ours: every record below c
 * was scanned (whichever record the checkpoint names), so the only one a resume from c might skip
 * is the one at c itself. If it is ours, or cannot be read, resume from `delivered` (a rescan,
 * never a gap). Deduplication still compares with `delivered`, so a record at c the server does
 * repeat is not lost either.
 */
export async function safeResumePosition(
  delivered: number,
  checkpoint: number | null,
  recordAt: (position: number) => Promise<'ours' | 'not-ours' | 'unknown'>,
): Promise<number> {
  if (checkpoint === null || checkpoint <= delivered) return delivered;
  return (await recordAt(checkpoint)) === 'not-ours' ? checkpoint : delivered;
}
