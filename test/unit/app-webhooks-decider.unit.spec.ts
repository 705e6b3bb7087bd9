import { appWebhooksDecider } from '../../src/app-webhooks/domain/app-webhooks.decider';
import {
  afterAttempt,
  deliveryEventId,
  MAX_RETRIES,
  payloadItemsFor,
  retryAfterMs,
  retryOffsetMs,
  type RecordChange,
} from '../../src/app-webhooks/domain/deliveries';
import { targetUrlProblem } from '../../src/app-webhooks/domain/subscription-types';
import { WebhooksEventType } from '../../src/app-webhooks/domain/webhook-events';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { DeciderSpecification } from '../support/decider-specification';

const NOW = Date.UTC(2026, 10, 1);
const spec = DeciderSpecification.for(appWebhooksDecider);
const configured = {
  type: WebhooksEventType.SettingsConfigured,
  data: { appId: 7, targetUrl: 'https://example.com/hook', maxConcurrentRequests: 10, configuredAt: NOW },
} as const;
const created = (subscriptionId: number, eventType: string, propertyName: string | null = null) =>
  ({
    type: WebhooksEventType.SubscriptionCreated,
    data: { appId: 7, subscriptionId, eventType, propertyName, objectTypeId: null, active: true, createdAt: NOW },
  }) as const;

describe('app webhooks decider', () => {
  it('settings: https, or http on loopback only; maxConcurrentRequests 1-100', () => {
    spec
      .given([])
      .when({
        type: 'ConfigureSettings',
        appId: 7,
        targetUrl: 'https://example.com/hook',
        maxConcurrentRequests: 10,
        now: NOW,
      })
      .then([configured]);
    const refused = spec
      .given([])
      .when({
        type: 'ConfigureSettings',
        appId: 7,
        targetUrl: 'http://example.com/',
        maxConcurrentRequests: 0,
        now: NOW,
      })
      .thenThrows(HubSpotError);
    expect(refused.extras.errors?.map((e) => e.in)).toEqual(['targetUrl', 'throttling.maxConcurrentRequests']);
    expect(targetUrlProblem('http://127.0.0.1:8080/x')).toBeNull();
    expect(targetUrlProblem('http://[::1]:8080/x')).toBeNull();
    expect(targetUrlProblem('http://localhost/x')).toBeNull();
    expect(targetUrlProblem('http://127.example.com/x')).not.toBeNull();
    expect(targetUrlProblem('ftp://example.com/x')).not.toBeNull();
    expect(targetUrlProblem('https://user:pw@example.com/x')).not.toBeNull();
  });

  it('clearing settings when there are none decides nothing; subscriptions stay', () => {
    spec.given([]).when({ type: 'ClearSettings', appId: 7, now: NOW }).then([]);
    spec
      .given([configured, created(1, 'contact.creation')])
      .when({ type: 'ClearSettings', appId: 7, now: NOW })
      .then([{ type: WebhooksEventType.SettingsCleared, data: { appId: 7, clearedAt: NOW } }]);
  });

  it('subscriptions are numbered per app; propertyChange needs a propertyName; a duplicate is 409', () => {
    const create = (eventType: string, propertyName: string | null = null) =>
      ({
        type: 'CreateSubscription',
        appId: 7,
        eventType,
        propertyName,
        objectTypeId: null,
        active: true,
        now: NOW,
      }) as const;
    spec
      .given([created(1, 'contact.creation')])
      .when(create('contact.propertyChange', 'email'))
      .then([created(2, 'contact.propertyChange', 'email')]);
    expect(spec.given([]).when(create('contact.propertyChange')).thenThrows(HubSpotError).extras.errors?.[0]?.in).toBe(
      'propertyName',
    );
    expect(spec.given([]).when(create('contact.sneeze')).thenThrows(HubSpotError).httpStatus).toBe(400);
    expect(spec.given([]).when(create('object.creation')).thenThrows(HubSpotError).extras.errors?.[0]?.in).toBe(
      'objectTypeId',
    );
    expect(
      spec
        .given([created(1, 'contact.creation')])
        .when(create('contact.creation'))
        .thenThrows(HubSpotError).httpStatus,
    ).toBe(409);
  });

  it('updates decide only changes of active; unknown ids are 404, or rejected in a batch', () => {
    const given = spec.given([created(1, 'contact.creation'), created(2, 'deal.creation')]);
    given.when({ type: 'UpdateSubscription', appId: 7, subscriptionId: 1, active: true, now: NOW }).then([]);
    expect(
      given
        .when({ type: 'UpdateSubscription', appId: 7, subscriptionId: 9, active: true, now: NOW })
        .thenThrows(HubSpotError).httpStatus,
    ).toBe(404);
    given
      .when({
        type: 'BatchUpdateSubscriptions',
        appId: 7,
        inputs: [
          { id: 2, active: false },
          { id: 9, active: false },
        ],
        now: NOW,
      })
      .then([
        {
          type: WebhooksEventType.SubscriptionActivationChanged,
          data: { appId: 7, subscriptionId: 2, active: false, updatedAt: NOW },
        },
      ]);
    expect(
      appWebhooksDecider.plan!(
        { type: 'BatchUpdateSubscriptions', appId: 7, inputs: [{ id: 9, active: false }], now: NOW },
        appWebhooksDecider.evolve(appWebhooksDecider.initialState(), created(1, 'contact.creation')),
      ).rejected,
    ).toEqual([{ id: 9 }]);
  });
});

describe('deliveries: payload, eventId, retries', () => {
  const change: RecordChange = {
    sourceEventId: '0190-aaaa',
    hubId: 100,
    objectTypeId: '0-1',
    objectId: 55,
    occurredAt: NOW,
    kind: 'creation',
    properties: { email: 'a@example.com', firstname: 'Ada' },
    mergedInto: null,
    appId: null,
    userId: 3,
  };
  const sub = (
    id: number,
    eventType: string,
    propertyName: string | null = null,
    objectTypeId: string | null = null,
  ) => ({
    id,
    eventType,
    propertyName,
    objectTypeId,
  });

  it('a creation: one creation item, and one propertyChange item per subscribed property set', () => {
    const eventId = deliveryEventId('0190-aaaa', 1);
    expect(payloadItemsFor(change, sub(1, 'contact.creation'), 7)).toEqual([
      {
        eventId,
        item: {
          eventId: Number(eventId),
          subscriptionId: 1,
          portalId: 100,
          appId: 7,
          occurredAt: NOW,
          subscriptionType: 'contact.creation',
          objectId: 55,
          changeSource: 'CRM_UI',
          sourceId: 'userId:3',
          changeFlag: 'CREATED',
        },
      },
    ]);
    expect(payloadItemsFor(change, sub(2, 'contact.propertyChange', 'firstname'), 7)[0]!.item).toMatchObject({
      propertyName: 'firstname',
      propertyValue: 'Ada',
    });
    expect(payloadItemsFor(change, sub(3, 'contact.propertyChange', 'lastname'), 7)).toEqual([]);
    expect(payloadItemsFor(change, sub(4, 'deal.creation'), 7)).toEqual([]);
    expect(payloadItemsFor(change, sub(5, 'object.creation', null, '0-1'), 7)[0]!.item).toMatchObject({
      objectTypeId: '0-1',
    });
  });

  it('a restore: the common fields alone (HubSpot added no property for it), for *.restore subscriptions only', () => {
    const restored = { ...change, kind: 'restore' as const, properties: {} };
    const eventId = deliveryEventId('0190-aaaa', 1);
    expect(payloadItemsFor(restored, sub(1, 'contact.restore'), 7)).toEqual([
      {
        eventId,
        item: {
          eventId: Number(eventId),
          subscriptionId: 1,
          portalId: 100,
          appId: 7,
          occurredAt: NOW,
          subscriptionType: 'contact.restore',
          objectId: 55,
          changeSource: 'CRM_UI',
          sourceId: 'userId:3',
        },
      },
    ]);
    expect(payloadItemsFor(restored, sub(2, 'object.restore', null, '0-1'), 7)[0]!.item).toMatchObject({
      objectTypeId: '0-1',
    });
    expect(payloadItemsFor(restored, sub(3, 'contact.creation'), 7)).toEqual([]);
    expect(payloadItemsFor(change, sub(4, 'contact.restore'), 7)).toEqual([]);
  });

  it('a merge names both sides', () => {
    const merged = { ...change, kind: 'merge' as const, mergedInto: 44, properties: {} };
    expect(payloadItemsFor(merged, sub(1, 'contact.merge'), 7)[0]!.item).toMatchObject({
      objectId: 44,
      primaryObjectId: 44,
      mergedObjectIds: [55],
      newObjectId: 44,
    });
  });

  it('an association change: HubSpot’s association fields, the type ids on object.* items', () => {
    const associated: RecordChange = {
      ...change,
      kind: 'associationChange',
      properties: {},
      association: {
        toObjectTypeId: '0-2',
        toObjectId: 9,
        typeId: 1,
        category: 'HUBSPOT_DEFINED',
        removed: true,
        primary: true,
      },
    };
    const legacy = payloadItemsFor(associated, sub(1, 'contact.associationChange'), 7)[0]!.item;
    expect(legacy).toMatchObject({
      subscriptionType: 'contact.associationChange',
      associationType: 'CONTACT_TO_COMPANY',
      fromObjectId: 55,
      toObjectId: 9,
      associationRemoved: true,
      isPrimaryAssociation: true,
    });
    expect(legacy).not.toHaveProperty('objectId');
    expect(legacy).not.toHaveProperty('fromObjectTypeId');
    expect(payloadItemsFor(associated, sub(2, 'object.associationChange', null, '0-1'), 7)[0]!.item).toMatchObject({
      fromObjectTypeId: '0-1',
      toObjectTypeId: '0-2',
      associationTypeId: 1,
      associationCategory: 'HUBSPOT_DEFINED',
    });
    expect(payloadItemsFor(associated, sub(3, 'company.associationChange'), 7)).toEqual([]);
    expect(payloadItemsFor(change, sub(4, 'contact.associationChange'), 7)).toEqual([]);
  });

  it('eventIds are stable, distinct per subscription, and safe integers', () => {
    expect(deliveryEventId('e1', 1)).toBe(deliveryEventId('e1', 1));
    expect(deliveryEventId('e1', 1)).not.toBe(deliveryEventId('e1', 2));
    expect(Number.isSafeInteger(Number(deliveryEventId('e1', 1)))).toBe(true);
    // The same value in every version (receivers deduplicate on it across upgrades and rebuilds).
    expect(deliveryEventId('e1', 1)).toBe('2886522641904273');
  });

  it('ten retries over less than a day, jittered by the eventId, the same on every replay', () => {
    const total = retryOffsetMs('42', MAX_RETRIES);
    expect(total).toBeLessThanOrEqual(86_400_000);
    expect(total).toBeGreaterThan(0.9 * 85_680_000 - 1);
    expect(retryOffsetMs('42', 3)).toBe(retryOffsetMs('42', 3));
    expect(retryOffsetMs('42', 3)).not.toBe(retryOffsetMs('43', 3));
    for (let n = 1; n < MAX_RETRIES; n++) expect(retryOffsetMs('42', n + 1)).toBeGreaterThan(retryOffsetMs('42', n));
  });

  it('2xx delivered; 400/401/403/404/405 failed; 5xx and no answer retried; 429 after Retry-After; abandoned after 10 retries', () => {
    const at = (statusCode: number | null, attemptNumber = 0, retryAfter: number | null = null) =>
      afterAttempt({
        eventId: '42',
        attemptNumber,
        firstAttemptAt: NOW,
        now: NOW,
        statusCode,
        retryAfterMs: retryAfter,
      });
    expect(at(204)).toEqual({ outcome: 'delivered', nextAttemptAt: null });
    for (const s of [400, 401, 403, 404, 405]) expect(at(s).outcome).toBe('failed');
    expect(at(500)).toEqual({ outcome: 'retrying', nextAttemptAt: NOW + retryOffsetMs('42', 1) });
    expect(at(null, 3)).toEqual({ outcome: 'retrying', nextAttemptAt: NOW + retryOffsetMs('42', 4) });
    expect(at(409).outcome).toBe('retrying');
    expect(at(429, 0, 3_600_000).nextAttemptAt).toBe(NOW + 3_600_000);
    expect(at(503, MAX_RETRIES)).toEqual({ outcome: 'abandoned', nextAttemptAt: null });
    expect(retryAfterMs('120', NOW)).toBe(120_000);
    expect(retryAfterMs(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(retryAfterMs('soon', NOW)).toBeNull();
  });
});
