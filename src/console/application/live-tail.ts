import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { EVENT_STORE, type EventStore, type Subscription } from '../../platform/event-store/event-store.port';
import type { RecordedEvent } from '../../platform/events/envelope';
import { auditView } from '../../platform/events/credential-hashes';
import { type AuditFilter, matches } from './audit-trail';

/** What a live tail writes to: one server-sent event per matching event, and the end. */
export interface TailSink {
  send(event: RecordedEvent): void;
  end(): void;
}

/**
 * The console's live tail: a subscription to the global feed from the head at connect time, each
 * committed event redacted (auditView) and filtered as the audit trail page is, handed to the
 * browser's EventSource. Every open tail ends when the app closes.
 */
@Injectable()
export class LiveTail implements OnModuleDestroy {
  private readonly open = new Set<{ subscription: Subscription; sink: TailSink }>();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async follow(filter: AuditFilter, sink: TailSink): Promise<() => void> {
    const subscription = this.store.subscribeToAll(await this.store.headPosition());
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

  onModuleDestroy(): void {
    for (const { subscription, sink } of [...this.open]) {
      subscription.close();
      sink.end();
    }
    this.open.clear();
  }
}
