import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { EVENT_STORE, type EventStore, type Subscription } from '../../platform/event-store/event-store.port';
import type { RecordedEvent } from '../../platform/events/envelope';
import { auditView } from '../../platform/events/credential-hashes';
import { InvalidPositionError } from '../../platform/event-store/store-errors';
import { type AuditFilter, matches } from './audit-trail';

/** What a live tail writes to: one server-sent event per matching event, a gap notice, and the end. */
export interface TailSink {
  send(event: RecordedEvent): void;
  /** The browser was away for more than REPLAY_LIMIT events: it reloads the page instead of a replay. */
  gap(): void;
  end(): void;
}

/** At most this many events are read again for a browser that reconnects (Last-Event-ID). */
export const REPLAY_LIMIT = 1000;

/**
 * The console's live tail: a subscription to the global feed, each committed event redacted
 * (auditView) and filtered as the audit trail page is, handed to the browser's EventSource. A first
 * connection starts at the head; a reconnection (`Last-Event-ID`, the position of the last event the
 * browser got) starts after that position, so the events committed while it was away are not missed,
 * up to REPLAY_LIMIT of them (past that the browser is told to reload the page). Every open tail ends
 * when the app closes.
 */
@Injectable()
export class LiveTail implements OnModuleDestroy {
  private readonly open = new Set<{ subscription: Subscription; sink: TailSink }>();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async follow(filter: AuditFilter, sink: TailSink, lastEventId?: number): Promise<() => void> {
    const from = await this.startAfter(lastEventId, sink);
    const subscription = this.store.subscribeToAll(from);
    const entry = { subscription, sink };
    this.open.add(entry);
    const stop = () => {
      if (!this.open.delete(entry)) return;
      subscription.close();
      sink.end();
    };
    void (async () => {
      try {
        for await (const batch of subscription) {
          for (const event of batch) {
            if (filter.stream !== undefined && event.streamId !== filter.stream) continue;
            if (filter.type !== undefined && event.type !== filter.type) continue;
            const view = auditView(event);
            if (matches(view, filter)) sink.send(view);
          }
        }
      } catch {
        // The store closed or failed: the browser's EventSource reconnects on its own.
      } finally {
        stop();
      }
    })();
    return stop;
  }

  /** Where the subscription starts: the head, or after the browser's last event when the replay is short enough. */
  private async startAfter(lastEventId: number | undefined, sink: TailSink): Promise<number> {
    const head = await this.store.headPosition();
    if (lastEventId === undefined || lastEventId >= head) return head;
    try {
      // One bounded read says whether the replay fits; the subscription then reads those events again.
      const missed = await this.store.readAll({ after: lastEventId, limit: REPLAY_LIMIT + 1 });
      if (missed.length <= REPLAY_LIMIT) return lastEventId;
    } catch (error) {
      // A position this store never issued (another store's, or made up): start at the head.
      if (!(error instanceof InvalidPositionError)) throw error;
    }
    sink.gap();
    return head;
  }

  onModuleDestroy(): void {
    for (const { subscription, sink } of [...this.open]) {
      subscription.close();
      sink.end();
    }
    this.open.clear();
  }
}
