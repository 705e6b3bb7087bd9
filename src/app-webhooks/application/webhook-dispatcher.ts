import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { AssociationEventType } from '../../crm-associations/crm-associations.events';
import { CrmRecordEventType } from '../../crm-records/crm-records.events';
import { CLOCK, type Clock, InstallClocks, MONOTONIC_CLOCK, type MonotonicClock } from '../../platform/clock';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import type { DomainEvent } from '../../platform/events/envelope';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Reactor } from '../../platform/projections/projection';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { afterAttempt, retryAfterMs } from '../domain/deliveries';
import {
  type AttemptedItem,
  type DeliveryAttempted,
  type DispatchLeaseEvent,
  WebhooksEventType,
} from '../domain/webhook-events';
import { OAuthEventType } from '../../oauth/oauth.events';
import { DeliveryRecordBusCommand } from './app-webhooks.commands';
import { DispatchLeases } from './dispatch-leases';
import { WebhookSigningSecrets } from './signing-secrets';
import { type OutboxItem, WebhooksQueries } from './webhooks.queries';

/** HubSpot's batch ceiling: at most 100 events per request. */
export const MAX_EVENTS_PER_REQUEST = 100;
/** HubSpot's User-Agent on webhook requests. */
export const HUBSPOT_WEBHOOK_USER_AGENT =
  'HubSpot Connect 2.0 (http://dev.hubspot.com/) (namespace: webhooks-nio-http-client) - WebhooksExecutorDaemon-executor';
const ACTOR = 'system:webhooks-dispatcher';
/** Stored of an answer's body, for the delivery log. */
const RESPONSE_BODY_KEPT = 1024;

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

/** The JSON array HubSpot posts: each item's fields in HubSpot's order, attemptNumber after subscriptionType. */
export function requestBody(items: readonly OutboxItem[]): string {
  return JSON.stringify(
    items.map((i) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(i.payload)) {
        out[key] = value;
        if (key === 'subscriptionType') out.attemptNumber = i.attemptNumber;
      }
      return out;
    }),
  );
}

function failureOf(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timeout';
  if (e.cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (e.cause?.code) return `connection failed (${e.cause.code})`;
  return `connection failed (${(e.cause?.message ?? e.message ?? 'unknown').slice(0, 200)})`;
}

/**
 * The webhook deliveries: a reactor on the checkpointed feed that wakes when a change could have
 * made work (a record event, a subscription, an install, an attempt), waits for the outbox read
 * model to hold it, then sends every due item: at most 100 per request, at most the app's
 * `maxConcurrentRequests` requests in flight, each answered within the timeout or counted failed.
 * Every attempt is appended (`webhooks.DeliveryAttempted`) before its items are free again, so an
 * item is sent at least once: a crash before the append leaves it waiting, and the next start sends
 * it again with the same eventId. Items come due on their install's clock (a retry moved ahead by
 * the install-clock control is sent at once); the poll finds those that came due as time passed.
 * With several instances on one store, only the holder of an app's dispatch lease sends its items
 * (dispatch-leases.ts), so each attempt leaves one instance.
 */
@Injectable()
export class WebhookDispatcher implements Reactor, OnApplicationBootstrap, OnModuleDestroy {
  readonly name = 'webhooks-dispatcher';
  readonly handles = [
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordPropertiesChanged,
    CrmRecordEventType.RecordArchived,
    CrmRecordEventType.RecordRestored,
    CrmRecordEventType.RecordMerged,
    CrmRecordEventType.RecordPurged,
    AssociationEventType.AssociationTypesAdded,
    AssociationEventType.AssociationTypesRemoved,
    WebhooksEventType.SettingsConfigured,
    WebhooksEventType.SubscriptionActivationChanged,
    WebhooksEventType.RedeliveryRequested,
    WebhooksEventType.DispatchLeaseTaken,
    WebhooksEventType.DispatchLeaseReleased,
    OAuthEventType.AppInstalled,
    OAuthEventType.AppInstallScopesChanged,
    'oauth.InstallClockAdvanced',
  ];
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Map<number, number>();
  private readonly sending = new Set<string>();
  private readonly requests = new Set<Promise<void>>();
  private seen = 0;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly queries: WebhooksQueries,
    private readonly clocks: InstallClocks,
    private readonly runner: ProjectionRunner,
    private readonly commandBus: CommandBus,
    private readonly leases: DispatchLeases,
    private readonly secrets: WebhookSigningSecrets,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MONOTONIC_CLOCK) private readonly monotonic: MonotonicClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  handle(event: Recorded<DomainEvent>): Promise<void> {
    if (event.position > this.seen) this.seen = event.position;
    if (event.type === WebhooksEventType.DispatchLeaseTaken || event.type === WebhooksEventType.DispatchLeaseReleased)
      this.leases.observed(event as Recorded<DispatchLeaseEvent>);
    this.wake();
    return Promise.resolve();
  }

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.enabled) return;
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.requests]);
    // Let the other instances take this one's apps at once rather than after the lease runs out.
    if (this.leases.enabled) await this.leases.releaseIdle(new Set(), true).catch(() => {});
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    await this.resealAfterKeyRotation();
    while (!this.stopping) {
      this.woken = false;
      try {
        if (this.seen > 0) await this.runner.readModelsReached(this.seen);
        await this.dispatchDue();
      } catch (error) {
        this.logger.error(`dispatch failed: ${(error as Error).message}`);
      }
      if (this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.config.webhooks.pollMs);
        timer.unref();
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  /** Once the read models hold the history: client secrets sealed with an older signing key, sealed anew. */
  private async resealAfterKeyRotation(): Promise<void> {
    try {
      await this.runner.waitForHead();
      await this.secrets.resealStale();
    } catch (error) {
      this.logger.error(`re-sealing client secrets failed: ${(error as Error).message}`);
    }
  }

  /** Starts a request for each full or due batch the apps' concurrency (and this instance's leases) allow. */
  private async dispatchDue(): Promise<void> {
    const busy = new Set<number>();
    for (const app of this.queries.appsWithWork()) {
      let batches = this.dueBatches(app);
      const inFlight = (this.inFlight.get(app.appId) ?? 0) > 0;
      if (batches.length > 0 || inFlight) busy.add(app.appId);
      if (this.leases.enabled) {
        if (!(await this.leases.maySend(app.appId, busy.has(app.appId)))) continue;
        // A take waited for the read models to hold the previous owner's attempts: look again.
        batches = this.dueBatches(app);
      }
      for (const batch of batches) this.start(app, batch);
    }
    if (this.leases.enabled) {
      for (const appId of this.inFlight.keys()) if ((this.inFlight.get(appId) ?? 0) > 0) busy.add(appId);
      await this.leases.releaseIdle(busy);
    }
  }

  /** The app's due items in batches of at most 100, as many batches as its free concurrency. */
  private dueBatches(app: { appId: number; maxConcurrentRequests: number }): OutboxItem[][] {
    let capacity = app.maxConcurrentRequests - (this.inFlight.get(app.appId) ?? 0);
    if (capacity <= 0) return [];
    const nowByHub = new Map<number, number>();
    const nowFor = (hubId: number) => {
      let now = nowByHub.get(hubId);
      if (now === undefined) nowByHub.set(hubId, (now = this.clocks.nowFor(app.appId, hubId)));
      return now;
    };
    const waiting = this.queries.waitingItems(app.appId, capacity * MAX_EVENTS_PER_REQUEST + this.sending.size);
    const batches: OutboxItem[][] = [];
    let batch: OutboxItem[] = [];
    for (const item of waiting) {
      if (this.sending.has(item.eventId) || item.nextAttemptAt > nowFor(item.hubId)) continue;
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

  private start(app: { appId: number; targetUrl: string }, items: OutboxItem[]): void {
    this.inFlight.set(app.appId, (this.inFlight.get(app.appId) ?? 0) + 1);
    for (const i of items) this.sending.add(i.eventId);
    const request = this.send(app.appId, app.targetUrl, items)
      .catch((error: unknown) => {
        // Not recorded: the items stay waiting and are sent again (at least once).
        this.logger.error(`delivery to app ${app.appId} not recorded: ${(error as Error).message}`);
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
    const sentAt = this.clock.now();
    const secret = this.secrets.secretFor(appId);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': HUBSPOT_WEBHOOK_USER_AGENT,
      ...(secret === null ? {} : signatureHeaders(secret, url, body, String(sentAt))),
      ...(secret === null ? { 'X-HubSpot-Request-Timestamp': String(sentAt) } : {}),
      'X-HubSpot-Timeout-Millis': String(this.config.webhooks.timeoutMs),
    };
    const started = this.monotonic.elapsedMs();
    let statusCode: number | null = null;
    let error: string | null = null;
    let responseBody: string | null = null;
    let retryAfter: string | null = null;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.webhooks.timeoutMs),
      });
      statusCode = response.status;
      retryAfter = response.headers.get('retry-after');
      responseBody = (await response.text()).slice(0, RESPONSE_BODY_KEPT);
    } catch (e) {
      if (statusCode === null) error = failureOf(e);
    }
    const durationMs = Math.max(0, Math.round(this.monotonic.elapsedMs() - started));
    const attempted: AttemptedItem[] = items.map((item) => {
      const now = this.clocks.nowFor(appId, item.hubId);
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
      requestBody: body,
      statusCode,
      error,
      responseBody,
      durationMs,
      items: attempted,
    };
    const { position } = await this.commandBus.execute(
      new DeliveryRecordBusCommand(
        { type: 'RecordDeliveryAttempt', attempt },
        { correlationId: randomUUID(), causationId: null, actor: ACTOR },
      ),
    );
    // The items are free again only once the outbox shows the attempt (else they would be re-sent).
    await this.runner.readModelsReached(position);
  }
}
