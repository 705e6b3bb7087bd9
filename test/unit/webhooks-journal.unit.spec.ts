import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { journalAppDecider } from '../../src/webhooks-journal/domain/journal-app.decider';
import {
  conditionsHold,
  entryOffset,
  objectSubscriptionTakes,
  OFFSET_PATTERN,
} from '../../src/webhooks-journal/domain/journal-entries';
import { JournalEventType, type JournalSubscription } from '../../src/webhooks-journal/domain/journal-events';
import { DeciderSpecification } from '../support/decider-specification';

const NOW = Date.UTC(2026, 10, 1);
const spec = DeciderSpecification.for(journalAppDecider);
const objects = (portalId: number, more: Partial<JournalSubscription> = {}): JournalSubscription => ({
  subscriptionType: 'OBJECT',
  portalId,
  objectTypeId: '0-1',
  actions: ['CREATE', 'UPDATE'],
  objectIds: [],
  properties: [],
  associatedObjectTypeIds: [],
  ...more,
});
const created = (subscriptionId: number, subscription: JournalSubscription) =>
  ({
    type: JournalEventType.SubscriptionCreated,
    data: { appId: 7, subscriptionId, subscription, createdAt: NOW },
  }) as const;
const status = (code: number) => (e: unknown) => e instanceof HubSpotError && e.httpStatus === code;

describe('webhooks journal decider', () => {
  it('numbers subscriptions and filters per app', () => {
    spec
      .given([created(1, objects(11))])
      .when({ type: 'CreateSubscription', appId: 7, subscription: objects(12), now: NOW })
      .then([created(2, objects(12))]);
    spec
      .given([created(1, objects(11))])
      .when({ type: 'CreateFilter', appId: 7, subscriptionId: 1, conditions: [], now: NOW })
      .then([
        {
          type: JournalEventType.FilterCreated,
          data: { appId: 7, filterId: 1, subscriptionId: 1, conditions: [], createdAt: NOW },
        },
      ]);
  });

  it('refuses what HubSpot’s request shapes rule out, and lists (this service has none)', () => {
    const refused = (s: Partial<JournalSubscription>) =>
      spec
        .given([])
        .when({ type: 'CreateSubscription', appId: 7, subscription: objects(11, s), now: NOW })
        .thenThrows(status(400));
    refused({ portalId: null });
    refused({ actions: [] });
    refused({ actions: ['APP_INSTALL'] });
    refused({ subscriptionType: 'ASSOCIATION', actions: ['ASSOCIATION_ADDED'] });
    refused({ subscriptionType: 'LIST_MEMBERSHIP', actions: ['ADDED_TO_LIST'] });
    spec
      .given([])
      .when({
        type: 'CreateSubscription',
        appId: 7,
        subscription: objects(0, { subscriptionType: 'APP_LIFECYCLE_EVENT', portalId: null, actions: [] }),
        now: NOW,
      })
      .then([
        created(
          1,
          objects(0, {
            subscriptionType: 'APP_LIFECYCLE_EVENT',
            portalId: null,
            actions: ['APP_INSTALL', 'APP_UNINSTALL'],
          }),
        ),
      ]);
  });

  it('deletes one subscription, or every one of an account; unknown ids are 404', () => {
    spec
      .given([created(1, objects(11)), created(2, objects(12)), created(3, objects(11))])
      .when({ type: 'DeletePortalSubscriptions', appId: 7, portalId: 11, now: NOW })
      .then(
        [1, 3].map((subscriptionId) => ({
          type: JournalEventType.SubscriptionDeleted,
          data: { appId: 7, subscriptionId, deletedAt: NOW },
        })),
      );
    spec.given([]).when({ type: 'DeleteSubscription', appId: 7, subscriptionId: 1, now: NOW }).thenThrows(status(404));
    spec.given([]).when({ type: 'DeleteFilter', appId: 7, filterId: 1, now: NOW }).thenThrows(status(404));
    spec
      .given([])
      .when({ type: 'CreateFilter', appId: 7, subscriptionId: 4, conditions: [], now: NOW })
      .thenThrows(status(404));
  });
});

describe('webhooks journal entries', () => {
  it('offsets: well-formed UUIDs, the same for the same event and app, different otherwise', () => {
    const a = entryOffset('0190a1b2-0000-7000-8000-000000000001', 7, 0);
    expect(a).toMatch(OFFSET_PATTERN);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(entryOffset('0190a1b2-0000-7000-8000-000000000001', 7, 0)).toBe(a);
    expect(entryOffset('0190a1b2-0000-7000-8000-000000000001', 8, 0)).not.toBe(a);
  });

  it('an OBJECT subscription takes its account, type, actions, objects and properties only', () => {
    const change = {
      portalId: 11,
      objectTypeId: '0-1',
      objectId: 5,
      action: 'UPDATE' as const,
      properties: { a: '1', b: '2' },
    };
    expect(objectSubscriptionTakes(objects(11), change)).toEqual({ a: '1', b: '2' });
    expect(objectSubscriptionTakes(objects(11, { properties: ['b'] }), change)).toEqual({ b: '2' });
    expect(objectSubscriptionTakes(objects(11, { properties: ['c'] }), change)).toBeNull();
    expect(objectSubscriptionTakes(objects(12), change)).toBeNull();
    expect(objectSubscriptionTakes(objects(11, { objectIds: [6] }), change)).toBeNull();
    expect(objectSubscriptionTakes(objects(11, { actions: ['CREATE'] }), change)).toBeNull();
    const gdpr = { ...change, action: 'GDPR_DELETE' as const, properties: {} };
    expect(objectSubscriptionTakes(objects(11, { actions: ['DELETE'] }), gdpr)).toBeNull();
    expect(
      objectSubscriptionTakes(
        objects(11, { subscriptionType: 'GDPR_PRIVACY_DELETION', actions: ['GDPR_DELETE'] }),
        gdpr,
      ),
    ).toEqual({});
  });

  it('filter conditions over the values an entry carries', () => {
    const c = (operator: string, value?: string, values?: string[]) =>
      [{ filterType: 'CRM_OBJECT_PROPERTY', property: 'p', operator, value, values }] as never;
    const v = { p: '10' };
    expect(conditionsHold(c('EQ', '10'), v)).toBe(true);
    expect(conditionsHold(c('N_EQ', '10'), v)).toBe(false);
    expect(conditionsHold(c('GT', '9'), v)).toBe(true);
    expect(conditionsHold(c('LTE', '9'), v)).toBe(false);
    expect(conditionsHold(c('CONTAINS', '0'), v)).toBe(true);
    expect(conditionsHold(c('STARTS_WITH', '2'), v)).toBe(false);
    expect(conditionsHold(c('IN', undefined, ['1', '10']), v)).toBe(true);
    expect(conditionsHold(c('NOT_IN', undefined, ['10']), v)).toBe(false);
    expect(conditionsHold(c('IS_NOT_EMPTY'), v)).toBe(true);
    expect(conditionsHold(c('IS_NOT_EMPTY'), {})).toBe(false);
    expect(conditionsHold(c('IS_EMPTY'), {})).toBe(true);
    expect(conditionsHold(c('EQ', '10'), {})).toBe(false);
  });
});
