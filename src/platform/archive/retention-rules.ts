import type { RecordedEvent } from '../events/envelope';

/**
 * A module's word on when a kind of stream stops mattering, so its history may leave the live
 * store for the archive. The archiver moves a whole stream, never part of one, and only once the
 * rule says it ended and every event of it is older than the retention window.
 */
export interface RetentionRule {
  /** Streams whose id starts with this belong to the rule. */
  streamPrefix: string;
  /**
   * Epoch ms from which the stream has no effect on any decision (the token expired, the code was
   * redeemed or expired), or null while it still may.
   */
  endedAt(events: readonly RecordedEvent[]): number | null;
}

/**
 * Process-wide registry, like the event types: rules are static facts of the code base, declared
 * by the module that owns the streams (EventSourcingModule.forFeature({ retention })).
 */
export class RetentionRules {
  private readonly rules: RetentionRule[] = [];

  register(rules: readonly RetentionRule[]): void {
    for (const rule of rules) {
      if (this.rules.some((r) => r.streamPrefix === rule.streamPrefix && r !== rule)) {
        throw new Error(`retention rule for ${rule.streamPrefix} registered twice`);
      }
      if (!this.rules.includes(rule)) this.rules.push(rule);
    }
  }

  /** The rule of a stream, or undefined: the stream stays live forever. */
  of(streamId: string): RetentionRule | undefined {
    return this.rules.find((r) => streamId.startsWith(r.streamPrefix));
  }

  get size(): number {
    return this.rules.length;
  }
}

export const retentionRules = new RetentionRules();
