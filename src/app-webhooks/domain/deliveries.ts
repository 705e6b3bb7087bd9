import { hash } from 'node:crypto';
import { parseEventType, subscribedObjectTypeId } from './subscription-types';
import type { ItemOutcome } from './webhook-events';

/**
 * What a subscription delivers: HubSpot's payload items for one record change, the eventId that
 * stays the same on every attempt, and HubSpot's retry rules. Pure: no clock, no I/O.
 */

/** A record change as the outbox sees it (from the CRM records module's published events). */
export interface RecordChange {
  /** The store's id of the event it came from: with the subscription, it names the delivery. */
  sourceEventId: string;
  hubId: number;
  objectTypeId: string;
  objectId: number;
  occurredAt: number;
  kind: 'creation' | 'propertyChange' | 'deletion' | 'restore' | 'merge' | 'privacyDeletion' | 'associationChange';
  /** creation: the values set; propertyChange: the values changed. */
  properties: Record<string, string>;
  /** merge: the record the object was merged into. */
  mergedInto: number | null;
  /** associationChange: one association type added or removed, seen from this record (`objectId`). */
  association?: AssociationSide;
  appId: number | null;
  userId: number | null;
}

/** One side of an association change: from this record to `toObjectId`, by one association type. */
export interface AssociationSide {
  toObjectTypeId: string;
  toObjectId: number;
  typeId: number;
  category: string;
  removed: boolean;
  /** HubSpot's Primary label (a contact's, deal's or ticket's primary company, and its inverse). */
  primary: boolean;
}

/** HubSpot's names of the objects in `associationType` (`CONTACT_TO_COMPANY`); other types by their id. */
const ASSOCIATION_NAMES: Readonly<Record<string, string>> = {
  '0-1': 'CONTACT',
  '0-2': 'COMPANY',
  '0-3': 'DEAL',
  '0-5': 'TICKET',
  '0-7': 'PRODUCT',
  '0-8': 'LINE_ITEM',
};
const associationName = (objectTypeId: string) => ASSOCIATION_NAMES[objectTypeId] ?? objectTypeId;

export interface SubscriptionRef {
  id: number;
  eventType: string;
  propertyName: string | null;
  objectTypeId: string | null;
}

/** One element of the JSON array HubSpot posts, without `attemptNumber` (set per attempt). */
export type PayloadItem = Record<string, string | number | number[] | boolean>;

/** One-shot SHA-256 (`crypto.hash`): a `createHash` object per item showed in the outbox's profile. */
const sha256Hex = (value: string) => hash('sha256', value, 'hex');

/**
 * HubSpot's eventId is a number: here the first 52 bits of SHA-256 over the source event's id and
 * the subscription's, so an item keeps it across retries, redeliveries and outbox rebuilds.
 */
export function deliveryEventId(sourceEventId: string, subscriptionId: number): string {
  return String(parseInt(sha256Hex(`${sourceEventId}:${subscriptionId}`).slice(0, 13), 16));
}

function changeSourceOf(change: RecordChange): { changeSource: string; sourceId?: string } {
  if (change.appId !== null) return { changeSource: 'INTEGRATION', sourceId: String(change.appId) };
  if (change.userId !== null) return { changeSource: 'CRM_UI', sourceId: `userId:${change.userId}` };
  return { changeSource: 'API' };
}

/** The items `subscription` of `appId` gets for `change` (none when it does not follow it). */
export function payloadItemsFor(
  change: RecordChange,
  subscription: SubscriptionRef,
  appId: number,
): { eventId: string; item: PayloadItem }[] {
  if (subscribedObjectTypeId(subscription.eventType, subscription.objectTypeId) !== change.objectTypeId) return [];
  const { object, action } = parseEventType(subscription.eventType);
  // Hashed once per item: the payload and the outbox row both name it.
  const eventId = deliveryEventId(change.sourceEventId, subscription.id);
  const base = (): PayloadItem => ({
    eventId: Number(eventId),
    subscriptionId: subscription.id,
    portalId: change.hubId,
    appId,
    occurredAt: change.occurredAt,
    subscriptionType: subscription.eventType,
    objectId: change.objectId,
    ...(object === 'object' ? { objectTypeId: change.objectTypeId } : {}),
    ...changeSourceOf(change),
  });
  const one = (item: PayloadItem) => [{ eventId, item }];
  switch (action) {
    case 'creation':
      return change.kind === 'creation' ? one({ ...base(), changeFlag: 'CREATED' }) : [];
    case 'deletion':
      return change.kind === 'deletion' ? one({ ...base(), changeFlag: 'DELETED' }) : [];
    // HubSpot added no payload property for restore (its changelog, "New subscription types for
    // webhooks"): the item is the common fields alone, no changeFlag.
    case 'restore':
      return change.kind === 'restore' ? one(base()) : [];
    case 'privacyDeletion':
      return change.kind === 'privacyDeletion' ? one({ ...base(), changeFlag: 'DELETED' }) : [];
    case 'propertyChange': {
      if (change.kind !== 'creation' && change.kind !== 'propertyChange') return [];
      const name = subscription.propertyName;
      if (name === null || !Object.hasOwn(change.properties, name)) return [];
      return one({ ...base(), propertyName: name, propertyValue: change.properties[name]! });
    }
    case 'merge': {
      if (change.kind !== 'merge' || change.mergedInto === null) return [];
      return one({
        ...base(),
        objectId: change.mergedInto,
        changeFlag: 'MERGED',
        primaryObjectId: change.mergedInto,
        mergedObjectIds: [change.objectId],
        newObjectId: change.mergedInto,
      });
    }
    case 'associationChange': {
      const a = change.association;
      if (change.kind !== 'associationChange' || !a) return [];
      const { objectId: _objectId, objectTypeId: _objectTypeId, ...rest } = base();
      return one({
        ...rest,
        associationType: `${associationName(change.objectTypeId)}_TO_${associationName(a.toObjectTypeId)}`,
        fromObjectId: change.objectId,
        toObjectId: a.toObjectId,
        associationRemoved: a.removed,
        isPrimaryAssociation: a.primary,
        ...(object === 'object'
          ? {
              fromObjectTypeId: change.objectTypeId,
              toObjectTypeId: a.toObjectTypeId,
              associationTypeId: a.typeId,
              associationCategory: a.category,
            }
          : {}),
      });
    }
    default:
      return [];
  }
}

/** HubSpot retries a failed request up to 10 times, spread over about a day. */
export const MAX_RETRIES = 10;
/**
 * Seconds from one attempt to the next (before jitter): 1 min, 2, 5, 10, 30 min, 1 h, 2, 4, 6, 10 h;
 * 85,680 s (23.8 h) in all, so a whole day on the install's clock plays every retry.
 */
const RETRY_DELAYS_S = [60, 120, 300, 600, 1800, 3600, 7200, 14400, 21600, 36000] as const;

/** Each delay shortened by 0-10 %, drawn from the eventId: spread out, yet the same on every replay. */
function jitter(eventId: string, retry: number): number {
  return 0.9 + (0.1 * parseInt(sha256Hex(`${eventId}/${retry}`).slice(0, 8), 16)) / 0x100000000;
}

/** Milliseconds from an item's first attempt to its retry number `retry` (1..MAX_RETRIES). */
export function retryOffsetMs(eventId: string, retry: number): number {
  let total = 0;
  for (let k = 1; k <= retry; k++) total += RETRY_DELAYS_S[k - 1]! * 1000 * jitter(eventId, k);
  return Math.round(total);
}

/** HubSpot never retries these: the receiver said the notification is unwanted. */
const NO_RETRY = new Set([400, 401, 403, 404, 405]);

/**
 * What becomes of an item after attempt `attemptNumber` (0 is the first): delivered on a 2xx;
 * failed for good on 400/401/403/404/405; otherwise (another status, a timeout, no connection)
 * retried on the schedule counted from its first attempt, a 429 no sooner than its Retry-After;
 * abandoned after MAX_RETRIES retries. Times are the install's.
 */
export function afterAttempt(input: {
  eventId: string;
  attemptNumber: number;
  firstAttemptAt: number;
  now: number;
  statusCode: number | null;
  retryAfterMs: number | null;
}): { outcome: ItemOutcome; nextAttemptAt: number | null } {
  const { statusCode } = input;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300)
    return { outcome: 'delivered', nextAttemptAt: null };
  if (statusCode !== null && NO_RETRY.has(statusCode)) return { outcome: 'failed', nextAttemptAt: null };
  const retry = input.attemptNumber + 1;
  if (retry > MAX_RETRIES) return { outcome: 'abandoned', nextAttemptAt: null };
  let next = input.firstAttemptAt + retryOffsetMs(input.eventId, retry);
  if (statusCode === 429 && input.retryAfterMs !== null) next = Math.max(next, input.now + input.retryAfterMs);
  return { outcome: 'retrying', nextAttemptAt: next };
}

/** A Retry-After header (seconds, or an HTTP date against `now`) in ms; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
