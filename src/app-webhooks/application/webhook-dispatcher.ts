import { createHash, createHmac, randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppConfig } from '../../platform/config/config';
import type { DomainEvent } from '../../platform/events/envelope';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Reactor } from '../../platform/projections/projection';
import type { ProjectionRunner } from '../../platform/projections/projection-runner';
import type { DispatcherBridge } from '../delivery-thread/thread-protocol';
import { afterAttempt, retryAfterMs } from '../domain/deliveries';
import { requestBody } from '../domain/request-body';
import {
  type AttemptedItem,
  type DeliveryAttempted,
  type DispatchLeaseEvent,
  WebhooksEventType,
} from '../domain/webhook-events';
import { OAuthEventType } from '../../oauth/oauth.events';
import { CHANGE_EVENT_TYPES } from '../projections/webhook-outbox.projection';
import type { DispatchLeases } from './dispatch-leases';
import type { OutboxItem, OutboxQueries, WaitingItem } from './outbox-queries';
import { WebhookRequests } from './webhook-requests';

/** What wakes the dispatcher: a change that could have made work, a lease, an install's clock moved. */
export const DISPATCHER_EVENT_TYPES = [
  ...CHANGE_EVENT_TYPES,
  WebhooksEventType.SettingsConfigured,
  WebhooksEventType.SubscriptionActivationChanged,
  WebhooksEventType.RedeliveryRequested,
  WebhooksEventType.DispatchLeaseTaken,
  WebhooksEventType.DispatchLeaseReleased,
  OAuthEventType.AppInstalled,
  OAuthEventType.AppInstallScopesChanged,
  'oauth.InstallClockAdvanced',
];

/** HubSpot's batch ceiling: at most 100 events per request. */
export const MAX_EVENTS_PER_REQUEST = 100;
/** HubSpot's User-Agent on webhook requests. */
export const HUBSPOT_WEBHOOK_USER_AGENT =
  'HubSpot Connect 2.0 (http://dev.hubspot.com/) (namespace: webhooks-nio-http-client) - WebhooksExecutorDaemon-executor';
/**
 * Record events come by the hundred (a batch create is 100 events): they wake the dispatcher at most
 * once per this many ms, not once each (each pass reads the app's waiting items).
 */
export const RECORD_WAKE_BATCH_MS = 50;
/** How often (service time) delivered items past the retention are looked for. */
export const PRUNE_EVERY_MS = 3_600_000;

/** The signature headers HubSpot sends, made with the app's client secret as `Signature.isValid` checks them. */
export function signatureHeaders(
  clientSecret: string,
  url: string,
  body: string,
  timestamp: string,
): Record<string, string> {
  return {
    'X-HubSpot-Signature': createHash('sha256')
      .update(clientSecret + body)
      .digest('hex'),
    'X-HubSpot-Signature-Version': 'v1',
    'X-HubSpot-Signature-v3': createHmac('sha256', clientSecret)
      .update(`POST${url}${body}${timestamp}`)
      .digest('base64'),
    'X-HubSpot-Request-Timestamp': timestamp,
  };
}

/**
 * The webhook deliveries, on the delivery thread: a reactor on that thread's own feed that wakes
 * when a change could have made work (a record event, a subscription, an install, an attempt),
 * waits for the outbox read model to hold it, then sends every due item: at most 100 per request,
 * at most the app's `maxConcurrentRequests` requests in flight, each answered within the timeout or
 * counted failed. Every attempt is appended (`webhooks.DeliveryAttempted`, by this thread:
 * DispatcherBridge.execute, dispatcher-commands.ts) before its items are free again, so an item is
 * sent at least once: a crash before the append leaves it waiting, and the next start sends it
 * again with the same eventId.
 * Items come due on their install's clock (the service's time plus the offset the install-clock
 * control gave it); the poll finds those that came due as time passed. With several instances on
 * one store, only the holder of an app's dispatch lease sends its items (dispatch-leases.ts), so
 * each attempt leaves one instance.
 */
export class WebhookDispatcher implements Reactor {
  readonly name = 'webhooks-dispatcher';
  readonly handles = DISPATCHER_EVENT_TYPES;
  private readonly inFlight = new Map<number, number>();
  private readonly sending = new Set<string>();
  private readonly requests = new Set<Promise<void>>();
  private seen = 0;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private batchTimer: NodeJS.Timeout | null = null;
  /** Service time of the last look for items to prune, and the retention edge it pruned up to. */
  private prunedAt = Number.NEGATIVE_INFINITY;
  private prunedBefore = 0;
  private loop: Promise<void> | null = null;
  private readonly http = new WebhookRequests();

  constructor(
    private readonly queries: OutboxQueries,
    /** The delivery thread's runner (its outbox). */
    private readonly runner: ProjectionRunner,
    private readonly bridge: DispatcherBridge,
    private readonly leases: DispatchLeases,
    private readonly monotonic: { elapsedMs(): number },
    private readonly config: AppConfig['webhooks'],
  ) {}

  handle(event: Recorded<DomainEvent>): Promise<void> {
    if (event.position > this.seen) this.seen = event.position;
    if (event.type === WebhooksEventType.DispatchLeaseTaken || event.type === WebhooksEventType.DispatchLeaseReleased)
      this.leases.observed(event as Recorded<DispatchLeaseEvent>);
    // The CRM's changes (records, associations: `crm.*`) come by the hundred; the rest wakes at once.
    if (event.type.startsWith('crm.')) this.wakeSoon();
    else this.wake();
    return Promise.resolve();
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.requests]);
    this.http.close();
    // Let the other instances take this one's apps at once rather than after the lease runs out.
    if (this.leases.enabled) await this.leases.releaseIdle(new Set(), true).catch(() => {});
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** A wake-up within RECORD_WAKE_BATCH_MS, shared by every record event until then. */
  private wakeSoon(): void {
    if (this.batchTimer) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = null;
      this.wake();
    }, RECORD_WAKE_BATCH_MS);
    this.batchTimer.unref();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      try {
        if (this.seen > 0) await this.runner.readModelsReached(this.seen);
        await this.dispatchDue();
        await this.pruneDelivered();
      } catch (error) {
        this.bridge.log('error', `dispatch failed: ${(error as Error).message}`);
      }
      if (this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.config.pollMs);
        timer.unref();
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  /**
   * Once an hour (service time): each app whose items were delivered before the retention's edge
   * since the last look gets a `webhooks.DeliveriesPruned` up to it (the log forgets them; the
   * history keeps them). Several instances may each append one: pruning twice removes nothing more.
   */
  private async pruneDelivered(): Promise<void> {
    const now = await this.bridge.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    const before = now - this.config.retentionDays * 86_400_000;
    for (const appId of this.queries.appsDeliveredBetween(this.prunedBefore, before)) {
      const { position } = (await this.bridge.execute({
        type: 'PruneDeliveries',
        appId,
        deliveredBefore: before,
        now,
      })) as { position: number };
      await this.runner.readModelsReached(position);
    }
    this.prunedBefore = Math.max(this.prunedBefore, before);
  }

  /** Starts a request for each full or due batch the apps' concurrency (and this instance's leases) allow. */
  private async dispatchDue(): Promise<void> {
    const busy = new Set<number>();
    for (const app of this.queries.appsWithWork()) {
      let batches = await this.dueBatches(app);
      const inFlight = (this.inFlight.get(app.appId) ?? 0) > 0;
      if (batches.length > 0 || inFlight) busy.add(app.appId);
      if (this.leases.enabled) {
        if (!(await this.leases.maySend(app.appId, busy.has(app.appId)))) continue;
        // A take waited for the read models to hold the previous owner's attempts: look again.
        batches = await this.dueBatches(app);
      }
      // One request per turn of the event loop: reading 100 payloads, the body, its signatures and
      // the request's start are a slice of their own, not one long run for every batch of every app.
      for (const batch of batches) {
        await nextTurn();
        if (this.stopping || !this.leases.holds(app.appId)) break;
        this.startRequest(app, batch);
      }
    }
    if (this.leases.enabled) {
      for (const appId of this.inFlight.keys()) if ((this.inFlight.get(appId) ?? 0) > 0) busy.add(appId);
      await this.leases.releaseIdle(busy);
    }
  }

  /** The app's due items in batches of at most 100, as many batches as its free concurrency. */
  private async dueBatches(app: { appId: number; maxConcurrentRequests: number }): Promise<WaitingItem[][]> {
    let capacity = app.maxConcurrentRequests - (this.inFlight.get(app.appId) ?? 0);
    if (capacity <= 0) return [];
    // Items in flight are left out now, before the clock is read (on a test's clock, an ask of the
    // API's thread): a request that ends during that wait frees its items, and this read, made
    // before its attempt was applied, would still show them waiting (they would be sent twice).
    const waiting = this.queries
      .waitingItems(app.appId, capacity * MAX_EVENTS_PER_REQUEST + this.sending.size)
      .filter((item) => !this.sending.has(item.eventId));
    if (waiting.length === 0) return [];
    const nowFor = await this.installClocks(app.appId);
    const batches: WaitingItem[][] = [];
    let batch: WaitingItem[] = [];
    for (const item of waiting) {
      if (item.nextAttemptAt > nowFor(item.hubId)) continue;
      batch.push(item);
      if (batch.length === MAX_EVENTS_PER_REQUEST) {
        batches.push(batch);
        batch = [];
        if (--capacity === 0) break;
      }
    }
    if (batch.length > 0 && capacity > 0) batches.push(batch);
    return batches;
  }

  /** The installs' times of the app's accounts, from one reading of the service's clock. */
  private async installClocks(appId: number): Promise<((hubId: number) => number) & { now: number }> {
    const now = await this.bridge.now();
    return Object.assign((hubId: number) => now + this.bridge.installOffsetMs(appId, hubId), { now });
  }

  private startRequest(app: { appId: number; targetUrl: string }, batch: WaitingItem[]): void {
    const items = this.queries.withPayloads(batch);
    if (items.length === 0) return;
    this.inFlight.set(app.appId, (this.inFlight.get(app.appId) ?? 0) + 1);
    for (const i of items) this.sending.add(i.eventId);
    const request = this.send(app.appId, app.targetUrl, items)
      .catch((error: unknown) => {
        // Not recorded: the items stay waiting and are sent again (at least once).
        this.bridge.log('error', `delivery to app ${app.appId} not recorded: ${(error as Error).message}`);
      })
      .finally(() => {
        this.inFlight.set(app.appId, (this.inFlight.get(app.appId) ?? 1) - 1);
        for (const i of items) this.sending.delete(i.eventId);
        this.requests.delete(request);
        this.wake();
      });
    this.requests.add(request);
  }

  private async send(appId: number, url: string, items: OutboxItem[]): Promise<void> {
    const body = requestBody(items);
    const secret = await this.bridge.secret(appId);
    const sentAt = await this.bridge.now();
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': HUBSPOT_WEBHOOK_USER_AGENT,
      ...(secret === null ? {} : signatureHeaders(secret, url, body, String(sentAt))),
      ...(secret === null ? { 'X-HubSpot-Request-Timestamp': String(sentAt) } : {}),
      'X-HubSpot-Timeout-Millis': String(this.config.timeoutMs),
    };
    const started = this.monotonic.elapsedMs();
    const { statusCode, retryAfter, responseBody, error } = await this.http.post(
      url,
      headers,
      body,
      this.config.timeoutMs,
    );
    const durationMs = Math.max(0, Math.round(this.monotonic.elapsedMs() - started));
    const nowFor = await this.installClocks(appId);
    const attempted: AttemptedItem[] = items.map((item) => {
      const now = nowFor(item.hubId);
      return {
        eventId: item.eventId,
        attemptNumber: item.attemptNumber,
        attemptedAt: now,
        ...afterAttempt({
          eventId: item.eventId,
          attemptNumber: item.attemptNumber,
          firstAttemptAt: item.firstAttemptAt ?? now,
          now,
          statusCode,
          retryAfterMs: retryAfterMs(retryAfter, now),
        }),
      };
    });
    const attempt: DeliveryAttempted['data'] = {
      appId,
      requestId: randomUUID(),
      url,
      sentAt,
      requestHeaders: headers,
      statusCode,
      error,
      responseBody,
      durationMs,
      items: attempted,
    };
    const { position } = (await this.bridge.execute({
      type: 'RecordDeliveryAttempt',
      attempt,
      now: nowFor.now,
    })) as { position: number };
    // The items are free again only once the outbox shows the attempt (else they would be re-sent).
    await this.runner.readModelsReached(position);
  }
}
