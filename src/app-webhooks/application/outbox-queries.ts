import type Database from 'better-sqlite3';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { requestBody } from '../domain/request-body';
import type { ItemOutcome } from '../domain/webhook-events';

/** A waiting outbox item as the dispatcher picks it (due or not), without its payload. */
export interface WaitingItem {
  seq: number;
  eventId: string;
  appId: number;
  hubId: number;
  attemptNumber: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number;
}

/** An outbox item: what the dispatcher sends. */
export interface OutboxItem extends WaitingItem {
  payload: Record<string, unknown>;
}

export type DeliveryStatus = 'pending' | ItemOutcome;

export interface AttemptView {
  requestId: string;
  attemptNumber: number;
  outcome: ItemOutcome;
  nextAttemptAt: number | null;
  url: string;
  sentAt: number;
  request: { headers: Record<string, string>; body: string };
  response: { statusCode: number | null; error: string | null; body: string | null; durationMs: number };
}

export interface DeliveryView {
  id: string;
  eventId: number;
  appId: number;
  portalId: number;
  subscriptionId: number;
  subscriptionType: string;
  objectId: number;
  status: DeliveryStatus;
  /** Attempts made so far (the next attempt's attemptNumber). */
  attempts: number;
  nextAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  payload: Record<string, unknown>;
  attemptLog: AttemptView[];
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  subscriptionId?: number;
  objectId?: number;
  after?: number;
  limit: number;
}

interface OutboxRow {
  seq: number;
  event_id: string;
  app_id: number;
  hub_id: number;
  subscription_id: number;
  subscription_type: string;
  object_id: number;
  payload: string;
  status: DeliveryStatus;
  attempt_number: number;
  first_attempt_at: number | null;
  next_attempt_at: number;
  last_status_code: number | null;
  last_error: string | null;
}

/** Reads of the delivery thread's read model (projection `webhooks-outbox`): the outbox and its log. */
export class OutboxQueries {
  constructor(private readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    return cachedStatement(this.db, sql);
  }

  /** Apps with items waiting (pending or retrying) and settings to send them with. */
  appsWithWork(): { appId: number; targetUrl: string; maxConcurrentRequests: number }[] {
    return (
      this.stmt(
        `SELECT s.app_id, s.target_url, s.max_concurrent FROM wh_settings s
         WHERE EXISTS (SELECT 1 FROM wh_outbox o WHERE o.status IN ('pending', 'retrying') AND o.app_id = s.app_id)`,
      ).all() as { app_id: number; target_url: string; max_concurrent: number }[]
    ).map((r) => ({ appId: r.app_id, targetUrl: r.target_url, maxConcurrentRequests: r.max_concurrent }));
  }

  /** Apps with items delivered at or after `from` and before `before` (service time). */
  appsDeliveredBetween(from: number, before: number): number[] {
    return this.stmt(
      `SELECT DISTINCT app_id FROM wh_outbox WHERE status = 'delivered' AND updated_at >= ? AND updated_at < ?`,
    )
      .pluck()
      .all(from, before) as number[];
  }

  /**
   * The app's waiting items in feed order (due or not: the install's clock decides), without their
   * payloads: the dispatcher looks at many more than it sends (the profile's hot spot was parsing them).
   */
  waitingItems(appId: number, limit: number): WaitingItem[] {
    // Two ranges of the due index merged in seq order: written as `status IN (...)`, the planner
    // walked the app's whole log in seq order through (app_id, seq), delivered items included, on
    // every pass (the cost grew with the outbox).
    const columns = 'seq, event_id, hub_id, attempt_number, first_attempt_at, next_attempt_at';
    return (
      this.stmt(
        `SELECT ${columns} FROM wh_outbox WHERE status = 'pending' AND app_id = @appId
         UNION ALL SELECT ${columns} FROM wh_outbox WHERE status = 'retrying' AND app_id = @appId
         ORDER BY seq LIMIT @limit`,
      ).all({ appId, limit }) as OutboxRow[]
    ).map((r) => ({
      seq: r.seq,
      eventId: r.event_id,
      appId,
      hubId: r.hub_id,
      attemptNumber: r.attempt_number,
      firstAttemptAt: r.first_attempt_at,
      nextAttemptAt: r.next_attempt_at,
    }));
  }

  /** The items chosen for a request, with their payloads (any gone meanwhile, by a rebuild, left out). */
  withPayloads(items: readonly WaitingItem[]): OutboxItem[] {
    // One read for the whole request, not one per item.
    const payloads = new Map(
      this.stmt('SELECT event_id, payload FROM wh_outbox WHERE event_id IN (SELECT value FROM json_each(?))')
        .raw()
        .all(JSON.stringify(items.map((i) => i.eventId))) as [string, string][],
    );
    return items.flatMap((i) => {
      const json = payloads.get(i.eventId);
      return json === undefined ? [] : [{ ...i, payload: JSON.parse(json) as Record<string, unknown> }];
    });
  }

  deliveries(appId: number, filter: DeliveryFilter): { results: DeliveryView[]; next: number | null } {
    const rows = this.stmt(
      `SELECT * FROM wh_outbox WHERE app_id = @appId AND seq > @after
         AND (@status IS NULL OR status = @status) AND (@subscriptionId IS NULL OR subscription_id = @subscriptionId)
         AND (@objectId IS NULL OR object_id = @objectId)
       ORDER BY seq LIMIT @limit`,
    ).all({
      appId,
      after: filter.after ?? 0,
      status: filter.status ?? null,
      subscriptionId: filter.subscriptionId ?? null,
      objectId: filter.objectId ?? null,
      limit: filter.limit + 1,
    }) as OutboxRow[];
    const page = rows.slice(0, filter.limit);
    return {
      results: page.map((r) => this.toDelivery(r)),
      next: rows.length > filter.limit ? page[page.length - 1]!.seq : null,
    };
  }

  delivery(appId: number, eventId: string): DeliveryView | null {
    const row = this.stmt('SELECT * FROM wh_outbox WHERE event_id = ? AND app_id = ?').get(eventId, appId) as
      OutboxRow | undefined;
    return row ? this.toDelivery(row) : null;
  }

  /** The exact body a request sent, from its items' payloads and attempt numbers in the body's order. */
  private rebuiltBody(requestId: string): string {
    const items = this.stmt(
      `SELECT o.payload, i.attempt_number FROM wh_attempt_items i JOIN wh_outbox o ON o.event_id = i.event_id
       WHERE i.request_id = ? ORDER BY i.ordinal`,
    ).all(requestId) as { payload: string; attempt_number: number }[];
    return requestBody(
      items.map((i) => ({
        payload: JSON.parse(i.payload) as Record<string, unknown>,
        attemptNumber: i.attempt_number,
      })),
    );
  }

  private toDelivery(r: OutboxRow): DeliveryView {
    const attempts = this.stmt(
      `SELECT i.attempt_number, i.outcome, i.next_attempt_at, a.* FROM wh_attempt_items i
       JOIN wh_attempts a ON a.request_id = i.request_id WHERE i.event_id = ? ORDER BY a.position`,
    ).all(r.event_id) as {
      request_id: string;
      attempt_number: number;
      outcome: ItemOutcome;
      next_attempt_at: number | null;
      url: string;
      sent_at: number;
      request_headers: string;
      request_body: string | null;
      status_code: number | null;
      error: string | null;
      response_body: string | null;
      duration_ms: number;
    }[];
    const waiting = r.status === 'pending' || r.status === 'retrying';
    return {
      id: r.event_id,
      eventId: Number(r.event_id),
      appId: r.app_id,
      portalId: r.hub_id,
      subscriptionId: r.subscription_id,
      subscriptionType: r.subscription_type,
      objectId: r.object_id,
      status: r.status,
      attempts: r.attempt_number,
      nextAttemptAt: waiting ? r.next_attempt_at : null,
      lastStatusCode: r.last_status_code,
      lastError: r.last_error,
      payload: JSON.parse(r.payload) as Record<string, unknown>,
      attemptLog: attempts.map((a) => ({
        requestId: a.request_id,
        attemptNumber: a.attempt_number,
        outcome: a.outcome,
        nextAttemptAt: a.next_attempt_at,
        url: a.url,
        sentAt: a.sent_at,
        request: {
          headers: JSON.parse(a.request_headers) as Record<string, string>,
          body: a.request_body ?? this.rebuiltBody(a.request_id),
        },
        response: { statusCode: a.status_code, error: a.error, body: a.response_body, durationMs: a.duration_ms },
      })),
    };
  }
}
