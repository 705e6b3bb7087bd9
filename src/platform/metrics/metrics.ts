import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per application instance (tests start many in one process). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly appendedEvents = new Counter({
    name: 'eventstore_appended_events_total',
    help: 'Events appended to the event store',
    registers: [this.registry],
  });
  readonly commits = new Counter({
    name: 'eventstore_commits_total',
    help: 'Transactions committed by the embedded store (each holds one or more appends)',
    registers: [this.registry],
  });
  readonly projectionLag = new Gauge({
    // Positions, not events: SQLite's are event numbers, EventStoreDB's byte offsets in its log.
    name: 'projection_lag_positions',
    help: "Store positions between the newest event and a projection's checkpoint (0: caught up)",
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly migratedPortals = new Counter({
    name: 'cards_migrated_portals_total',
    help: 'Accounts whose views were migrated from a legacy card to an app card',
    registers: [this.registry],
  });

  readonly deliveryThreadQuestions = new Counter({
    name: 'webhooks_delivery_thread_questions_total',
    help: "Questions the webhooks delivery thread asked the API's thread (each answer a turn of the API's event loop)",
    labelNames: ['question'] as const,
    registers: [this.registry],
  });

  constructor(defaultMetrics = true) {
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }
}
