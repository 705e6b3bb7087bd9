import type { Decider } from '../../platform/commands/decider';
import { filterNotFound, invalidSubscription, listsNotSupported, subscriptionNotFound } from './journal-errors';
import {
  type FilterCondition,
  type JournalEvent,
  JournalEventType,
  type JournalSubscription,
  type SnapshotRequested,
} from './journal-events';

/**
 * One app's journal settings (`journal.app-{appId}`): its subscriptions, their filters and the
 * snapshots it asked for. Ids count up per app, as HubSpot's int64 ids.
 */
export interface JournalAppState {
  lastSubscriptionId: number;
  lastFilterId: number;
  /** id -> the account it follows (null: every install). */
  subscriptions: Map<number, number | null>;
  filters: Set<number>;
}

export type JournalAppCommand =
  | { type: 'CreateSubscription'; appId: number; subscription: JournalSubscription; now: number }
  | { type: 'DeleteSubscription'; appId: number; subscriptionId: number; now: number }
  | { type: 'DeletePortalSubscriptions'; appId: number; portalId: number; now: number }
  | { type: 'CreateFilter'; appId: number; subscriptionId: number; conditions: FilterCondition[]; now: number }
  | { type: 'DeleteFilter'; appId: number; filterId: number; now: number }
  | {
      type: 'RequestSnapshots';
      appId: number;
      /** Each with its fresh status id and its install's time, added by the handler. */
      requests: Omit<SnapshotRequested['data'], 'appId'>[];
    };

const ACTIONS_BY_TYPE: Record<JournalSubscription['subscriptionType'], readonly string[]> = {
  OBJECT: ['CREATE', 'UPDATE', 'DELETE', 'MERGE', 'RESTORE'],
  ASSOCIATION: ['ASSOCIATION_ADDED', 'ASSOCIATION_REMOVED'],
  APP_LIFECYCLE_EVENT: ['APP_INSTALL', 'APP_UNINSTALL'],
  LIST_MEMBERSHIP: ['ADDED_TO_LIST', 'REMOVED_FROM_LIST'],
  GDPR_PRIVACY_DELETION: ['GDPR_DELETE'],
};

/** Why a subscription is refused (the DTO checked the shapes; these are the rules between fields). */
export function checkSubscription(s: JournalSubscription): void {
  if (s.subscriptionType === 'LIST_MEMBERSHIP') throw listsNotSupported();
  if (s.subscriptionType !== 'APP_LIFECYCLE_EVENT' && s.portalId === null) {
    throw invalidSubscription('portalId', `portalId is required for ${s.subscriptionType} subscriptions`);
  }
  if (s.objectTypeId === '') throw invalidSubscription('objectTypeId', 'objectTypeId is required');
  const allowed = ACTIONS_BY_TYPE[s.subscriptionType];
  if (s.subscriptionType !== 'APP_LIFECYCLE_EVENT' && s.actions.length === 0) {
    throw invalidSubscription('actions', 'actions must name at least one action');
  }
  const wrong = s.actions.filter((a) => !allowed.includes(a));
  if (wrong.length > 0) {
    throw invalidSubscription(
      'actions',
      `${wrong.join(', ')} cannot be journaled by a ${s.subscriptionType} subscription (it takes ${allowed.join(', ')})`,
    );
  }
  if (s.subscriptionType === 'ASSOCIATION' && s.associatedObjectTypeIds.length === 0) {
    throw invalidSubscription('associatedObjectTypeIds', 'associatedObjectTypeIds must name at least one object type');
  }
}

export const journalAppDecider: Decider<JournalAppState, JournalAppCommand, JournalEvent> = {
  initialState: () => ({ lastSubscriptionId: 0, lastFilterId: 0, subscriptions: new Map(), filters: new Set() }),

  evolve(state, event) {
    switch (event.type) {
      case JournalEventType.SubscriptionCreated: {
        const subscriptions = new Map(state.subscriptions);
        subscriptions.set(event.data.subscriptionId, event.data.subscription.portalId);
        return { ...state, lastSubscriptionId: event.data.subscriptionId, subscriptions };
      }
      case JournalEventType.SubscriptionDeleted: {
        const subscriptions = new Map(state.subscriptions);
        subscriptions.delete(event.data.subscriptionId);
        return { ...state, subscriptions };
      }
      case JournalEventType.FilterCreated:
        return {
          ...state,
          lastFilterId: event.data.filterId,
          filters: new Set([...state.filters, event.data.filterId]),
        };
      case JournalEventType.FilterDeleted: {
        const filters = new Set(state.filters);
        filters.delete(event.data.filterId);
        return { ...state, filters };
      }
      default:
        return state;
    }
  },

  decide(command, state) {
    const { appId } = command;
    switch (command.type) {
      case 'CreateSubscription': {
        // APP_LIFECYCLE_EVENT follows every install: HubSpot's request names no account for it.
        const subscription =
          command.subscription.subscriptionType === 'APP_LIFECYCLE_EVENT' && command.subscription.actions.length === 0
            ? { ...command.subscription, actions: ['APP_INSTALL', 'APP_UNINSTALL'] as JournalSubscription['actions'] }
            : command.subscription;
        checkSubscription(subscription);
        return [
          {
            type: JournalEventType.SubscriptionCreated,
            data: { appId, subscriptionId: state.lastSubscriptionId + 1, subscription, createdAt: command.now },
          },
        ];
      }
      case 'DeleteSubscription':
        if (!state.subscriptions.has(command.subscriptionId)) throw subscriptionNotFound(command.subscriptionId);
        return [
          {
            type: JournalEventType.SubscriptionDeleted,
            data: { appId, subscriptionId: command.subscriptionId, deletedAt: command.now },
          },
        ];
      case 'DeletePortalSubscriptions':
        return [...state.subscriptions]
          .filter(([, portalId]) => portalId === command.portalId)
          .map(([subscriptionId]) => ({
            type: JournalEventType.SubscriptionDeleted,
            data: { appId, subscriptionId, deletedAt: command.now },
          }));
      case 'CreateFilter':
        if (!state.subscriptions.has(command.subscriptionId)) throw subscriptionNotFound(command.subscriptionId);
        return [
          {
            type: JournalEventType.FilterCreated,
            data: {
              appId,
              filterId: state.lastFilterId + 1,
              subscriptionId: command.subscriptionId,
              conditions: command.conditions,
              createdAt: command.now,
            },
          },
        ];
      case 'DeleteFilter':
        if (!state.filters.has(command.filterId)) throw filterNotFound(command.filterId);
        return [
          { type: JournalEventType.FilterDeleted, data: { appId, filterId: command.filterId, deletedAt: command.now } },
        ];
      case 'RequestSnapshots':
        return command.requests.map((r) => ({ type: JournalEventType.SnapshotRequested, data: { appId, ...r } }));
    }
  },
};
