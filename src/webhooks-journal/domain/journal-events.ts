import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';

/**
 * Event types of the webhooks journal (HubSpot's 2026-03 pull model). Stable strings: they are what
 * storage holds. An app's journal subscriptions, filters and snapshot requests live on one stream
 * (`journal.app-{appId}`); the journal's entries are not events of their own but a read of the
 * history (projections/webhooks-journal.projection.ts).
 */
export const JournalEventType = {
  SubscriptionCreated: 'journal.SubscriptionCreated',
  SubscriptionDeleted: 'journal.SubscriptionDeleted',
  FilterCreated: 'journal.FilterCreated',
  FilterDeleted: 'journal.FilterDeleted',
  SnapshotRequested: 'journal.SnapshotRequested',
} as const;

export const journalAppStream = (appId: number) => `journal.app-${appId}`;

/** HubSpot's journal actions (the `actions` enum of webhooksJournal.json). */
export const JOURNAL_ACTIONS = [
  'CREATE',
  'UPDATE',
  'DELETE',
  'MERGE',
  'RESTORE',
  'ASSOCIATION_ADDED',
  'ASSOCIATION_REMOVED',
  'SNAPSHOT',
  'APP_INSTALL',
  'APP_UNINSTALL',
  'ADDED_TO_LIST',
  'REMOVED_FROM_LIST',
  'GDPR_DELETE',
] as const;
export type JournalAction = (typeof JOURNAL_ACTIONS)[number];

export const SUBSCRIPTION_TYPES = [
  'OBJECT',
  'ASSOCIATION',
  'APP_LIFECYCLE_EVENT',
  'LIST_MEMBERSHIP',
  'GDPR_PRIVACY_DELETION',
] as const;
export type JournalSubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

/** A subscription as created (HubSpot's upsert request, normalized: absent lists are empty). */
export interface JournalSubscription {
  subscriptionType: JournalSubscriptionType;
  /** The account it follows; null for APP_LIFECYCLE_EVENT (every install of the app). */
  portalId: number | null;
  /** `0-1`, `2-123`, ...; for APP_LIFECYCLE_EVENT its `eventTypeId`. */
  objectTypeId: string;
  actions: JournalAction[];
  /** Empty: every object of the type. */
  objectIds: number[];
  /** OBJECT: the properties whose changes it keeps (empty: all). */
  properties: string[];
  associatedObjectTypeIds: string[];
}

export const CONDITION_OPERATORS = [
  'EQ',
  'N_EQ',
  'LT',
  'GT',
  'LTE',
  'GTE',
  'CONTAINS',
  'STARTS_WITH',
  'ENDS_WITH',
  'IN',
  'NOT_IN',
  'IS_EMPTY',
  'IS_NOT_EMPTY',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface FilterCondition {
  filterType: 'CRM_OBJECT_PROPERTY';
  property: string;
  operator: ConditionOperator;
  value?: string;
  values?: string[];
}

export interface SubscriptionCreated {
  type: typeof JournalEventType.SubscriptionCreated;
  data: { appId: number; subscriptionId: number; subscription: JournalSubscription; createdAt: number };
}

export interface SubscriptionDeleted {
  type: typeof JournalEventType.SubscriptionDeleted;
  data: { appId: number; subscriptionId: number; deletedAt: number };
}

export interface FilterCreated {
  type: typeof JournalEventType.FilterCreated;
  data: { appId: number; filterId: number; subscriptionId: number; conditions: FilterCondition[]; createdAt: number };
}

export interface FilterDeleted {
  type: typeof JournalEventType.FilterDeleted;
  data: { appId: number; filterId: number; deletedAt: number };
}

/** One record to journal as it is now (a SNAPSHOT entry), asked by the app; the read model decides its outcome. */
export interface SnapshotRequested {
  type: typeof JournalEventType.SnapshotRequested;
  data: {
    appId: number;
    snapshotStatusId: string;
    portalId: number;
    objectTypeId: string;
    objectId: number;
    /** The properties to include (empty: every value the record has). */
    properties: string[];
    /** The install's time (its clock) of the request. */
    requestedAt: number;
  };
}

export type JournalEvent =
  SubscriptionCreated | SubscriptionDeleted | FilterCreated | FilterDeleted | SnapshotRequested;

export const journalEvents: EventDefinitions = {
  [JournalEventType.SubscriptionCreated]: null,
  [JournalEventType.SubscriptionDeleted]: null,
  [JournalEventType.FilterCreated]: null,
  [JournalEventType.FilterDeleted]: null,
  [JournalEventType.SnapshotRequested]: null,
} satisfies Record<(typeof JournalEventType)[keyof typeof JournalEventType], EventDecoder | null>;
