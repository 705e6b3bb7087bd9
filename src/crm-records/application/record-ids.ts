import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import type { CommandContext } from '../../platform/events/envelope';
import { recordIdsDecider } from '../domain/record-ids.decider';
import { recordIdsStream } from '../domain/record-events';

/** Ids taken per reservation: one append to the account's id stream per this many creates. */
export const RECORD_ID_RANGE = 1000;

interface Range {
  next: number;
  end: number;
}

/**
 * Hands out record ids, numeric and unique per account, from ranges this instance reserved on the
 * account's id stream (`crm.record-ids-{hubId}`): one append per RECORD_ID_RANGE records, not one per
 * record. Concurrent requests of one account share one pending reservation. A range's unused ids
 * are lost when the process stops.
 */
@Injectable()
export class RecordIds {
  private readonly ranges = new Map<number, Range>();
  private readonly pending = new Map<number, Promise<Range>>();
  private readonly reservations;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    // Several instances may reserve at once: each round one wins, so allow a few rounds.
    this.reservations = streams.forDecider(recordIdsDecider, { maxAttempts: 16 });
  }

  async next(hubId: number, context: CommandContext): Promise<number> {
    for (;;) {
      const range = this.ranges.get(hubId);
      if (range && range.next <= range.end) return range.next++;
      await this.reserve(hubId, context);
    }
  }

  private reserve(hubId: number, context: CommandContext): Promise<Range> {
    let pending = this.pending.get(hubId);
    if (!pending) {
      pending = this.reservations
        .handle(
          recordIdsStream(hubId),
          { type: 'ReserveRecordIds', hubId, count: RECORD_ID_RANGE, now: this.clock.now() },
          context,
        )
        .then(({ events }) => {
          const { from, count } = events[0]!.data;
          const range = { next: from, end: from + count - 1 };
          this.ranges.set(hubId, range);
          return range;
        })
        .finally(() => this.pending.delete(hubId));
      this.pending.set(hubId, pending);
    }
    return pending;
  }
}
