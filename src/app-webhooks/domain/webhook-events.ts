import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';

/**
 * Event types of app webhooks. Stable strings: they are what storage holds. An app's settings and
 * subscriptions live on one stream (`webhooks.app-{appId}`); every delivery attempt (one HTTP
 * request, up to 100 items) is an event on its own stream, and so is every redelivery asked for.
 */
export const WebhooksEventType = {
  SettingsConfigured: 'webhooks.SettingsConfigured',
  SettingsCleared: 'webhooks.SettingsCleared',
  SubscriptionCreated: 'webhooks.SubscriptionCreated',
  SubscriptionActivationChanged: 'webhooks.SubscriptionActivationChanged',
  SubscriptionDeleted: 'webhooks.SubscriptionDeleted',
  DeliveryAttempted: 'webhooks.DeliveryAttempted',
  RedeliveryRequested: 'webhooks.RedeliveryRequested',
  DispatchLeaseTaken: 'webhooks.DispatchLeaseTaken',
  DispatchLeaseReleased: 'webhooks.DispatchLeaseReleased',
  SigningSecretResealed: 'webhooks.SigningSecretResealed',
  DeliveriesPruned: 'webhooks.DeliveriesPruned',
} as const;

export const appWebhooksStream = (appId: number) => `webhooks.app-${appId}`;
export const deliveryAttemptStream = (appId: number, requestId: string) => `webhooks.request-${appId}-${requestId}`;
/** The app a delivery attempt's stream names (deliveryAttemptStream), or null for another stream. */
export const appIdOfAttemptStream = (streamId: string): number | null => {
  const m = /^webhooks\.request-(\d{1,15})-/.exec(streamId);
  return m ? Number(m[1]) : null;
};
export const redeliveryStream = (appId: number, requestId: string) => `webhooks.redelivery-${appId}-${requestId}`;
/** Which instance sends an app's deliveries (several instances on one store; docs/webhooks.md). */
export const dispatchLeaseStream = (appId: number) => `webhooks.dispatch-lease-${appId}`;
export const signingSecretStream = (appId: number) => `webhooks.signing-secret-${appId}`;
export const deliveriesPrunedStream = (appId: number) => `webhooks.pruned-${appId}`;

/** The app's one target URL and its concurrency (HubSpot's `throttling.maxConcurrentRequests`). */
export interface SettingsConfigured {
  type: typeof WebhooksEventType.SettingsConfigured;
  data: { appId: number; targetUrl: string; maxConcurrentRequests: number; configuredAt: number };
}

/** Deliveries pause; the subscriptions stay. */
export interface SettingsCleared {
  type: typeof WebhooksEventType.SettingsCleared;
  data: { appId: number; clearedAt: number };
}

export interface SubscriptionCreated {
  type: typeof WebhooksEventType.SubscriptionCreated;
  data: {
    appId: number;
    subscriptionId: number;
    /** HubSpot's `eventType`: `contact.creation`, `deal.propertyChange`, `object.creation`, ... */
    eventType: string;
    /** Required for `*.propertyChange`, else null. */
    propertyName: string | null;
    /** For `object.*` subscriptions: the object type they follow (`0-1`, `2-123`), else null. */
    objectTypeId: string | null;
    active: boolean;
    createdAt: number;
  };
}

export interface SubscriptionActivationChanged {
  type: typeof WebhooksEventType.SubscriptionActivationChanged;
  data: { appId: number; subscriptionId: number; active: boolean; updatedAt: number };
}

export interface SubscriptionDeleted {
  type: typeof WebhooksEventType.SubscriptionDeleted;
  data: { appId: number; subscriptionId: number; deletedAt: number };
}

/** What became of an item after an attempt: its next attempt (install time), or why there is none. */
export type ItemOutcome = 'delivered' | 'retrying' | 'failed' | 'abandoned';

export interface AttemptedItem {
  /** HubSpot's `eventId` (a number, kept as its decimal string): the same on every attempt. */
  eventId: string;
  attemptNumber: number;
  /** The install's time of this attempt (the item's account's clock): retries count from the first. */
  attemptedAt: number;
  outcome: ItemOutcome;
  /** Install time (epoch ms) of the next attempt when retrying, else null. */
  nextAttemptAt: number | null;
}

/**
 * One HTTP request to the app's target URL and its answer: what Stripe's and GitHub's delivery
 * logs show. The body is not held: `items`, in the body's order, name what was sent, and the
 * delivery log rebuilds the exact bytes from their payloads and attempt numbers
 * (domain/request-body.ts); the headers keep the signature inputs (URL, timestamp) and signatures.
 * A body of 100 items made each attempt event ~25 KB, applied on the API's event loop.
 */
export interface DeliveryAttempted {
  type: typeof WebhooksEventType.DeliveryAttempted;
  data: {
    appId: number;
    requestId: string;
    url: string;
    /** Service time (epoch ms) the request was sent. */
    sentAt: number;
    requestHeaders: Record<string, string>;
    /** Only in attempts recorded before the body was rebuilt from `items`: the bytes sent. */
    requestBody?: string;
    /** The answer's status, or null when there was none (timeout, refused, reset). */
    statusCode: number | null;
    /** `timeout`, `connection refused`, ... when there was no answer. */
    error: string | null;
    /** At most 1 KiB of the answer's body. */
    responseBody: string | null;
    durationMs: number;
    /** The request's items in the body's order. */
    items: AttemptedItem[];
  };
}

/** An admin asked for an item to be sent again now (same eventId, next attemptNumber). */
export interface RedeliveryRequested {
  type: typeof WebhooksEventType.RedeliveryRequested;
  data: { appId: number; eventId: string; requestedAt: number };
}

/**
 * An instance took (or renewed) the right to send an app's deliveries for `leaseMs`, appended at the
 * lease stream's expected revision (the fence: of two instances taking at once, one append fails).
 */
export interface DispatchLeaseTaken {
  type: typeof WebhooksEventType.DispatchLeaseTaken;
  data: { appId: number; owner: string; leaseMs: number; takenAt: number };
}

/** The owner let the app go (no work left, or shutting down): another instance may take it at once. */
export interface DispatchLeaseReleased {
  type: typeof WebhooksEventType.DispatchLeaseReleased;
  data: { appId: number; owner: string; releasedAt: number };
}

/**
 * The app's client secret sealed again under the current signing key (after TOKEN_SIGNING_KEYS was
 * rotated), so deliveries stay signed once the old key is dropped. `replaces` is the SHA-256 of the
 * directory's seal it stands for: a later client-secret rotation makes it stale.
 */
export interface SigningSecretResealed {
  type: typeof WebhooksEventType.SigningSecretResealed;
  data: { appId: number; sealed: string; replaces: string; resealedAt: number };
}

/**
 * The app's items delivered before `deliveredBefore` (service time, epoch ms; the retention's edge
 * when it was appended) leave the outbox read model and the delivery log, with every request that
 * held only such items. The history keeps all of them (audit; a rebuild prunes at the same point).
 */
export interface DeliveriesPruned {
  type: typeof WebhooksEventType.DeliveriesPruned;
  data: { appId: number; deliveredBefore: number; prunedAt: number };
}

export type DispatchLeaseEvent = DispatchLeaseTaken | DispatchLeaseReleased;

export type AppWebhooksEvent =
  SettingsConfigured | SettingsCleared | SubscriptionCreated | SubscriptionActivationChanged | SubscriptionDeleted;
export type WebhooksEvent =
  | AppWebhooksEvent
  | DeliveryAttempted
  | RedeliveryRequested
  | DispatchLeaseEvent
  | SigningSecretResealed
  | DeliveriesPruned;

export const webhooksEvents: EventDefinitions = {
  [WebhooksEventType.SettingsConfigured]: null,
  [WebhooksEventType.SettingsCleared]: null,
  [WebhooksEventType.SubscriptionCreated]: null,
  [WebhooksEventType.SubscriptionActivationChanged]: null,
  [WebhooksEventType.SubscriptionDeleted]: null,
  [WebhooksEventType.DeliveryAttempted]: null,
  [WebhooksEventType.RedeliveryRequested]: null,
  [WebhooksEventType.DispatchLeaseTaken]: null,
  [WebhooksEventType.DispatchLeaseReleased]: null,
  [WebhooksEventType.SigningSecretResealed]: null,
  [WebhooksEventType.DeliveriesPruned]: null,
} satisfies Record<(typeof WebhooksEventType)[keyof typeof WebhooksEventType], EventDecoder | null>;
