import type { Decider } from '../../platform/commands/decider';
import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import { isEventType, parseEventType, targetUrlProblem } from './subscription-types';
import { type AppWebhooksEvent, WebhooksEventType } from './webhook-events';

/**
 * One app's webhook settings and subscriptions (stream `webhooks.app-{appId}`): its one target URL
 * and concurrency, and its subscriptions, numbered per app from 1 in creation order.
 */
export interface SubscriptionState {
  id: number;
  eventType: string;
  propertyName: string | null;
  objectTypeId: string | null;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface AppWebhooksState {
  settings: { targetUrl: string; maxConcurrentRequests: number; createdAt: number; updatedAt: number } | null;
  subscriptions: ReadonlyMap<number, SubscriptionState>;
  lastSubscriptionId: number;
}

export const MIN_CONCURRENT_REQUESTS = 1;
export const MAX_CONCURRENT_REQUESTS = 100;
/** HubSpot's ceiling of subscriptions per app. */
export const MAX_SUBSCRIPTIONS = 1000;

export interface ConfigureSettings {
  type: 'ConfigureSettings';
  appId: number;
  targetUrl: string;
  maxConcurrentRequests: number;
  now: number;
}
export interface ClearSettings {
  type: 'ClearSettings';
  appId: number;
  now: number;
}
export interface CreateSubscription {
  type: 'CreateSubscription';
  appId: number;
  eventType: string;
  propertyName: string | null;
  objectTypeId: string | null;
  active: boolean;
  now: number;
}
export interface UpdateSubscription {
  type: 'UpdateSubscription';
  appId: number;
  subscriptionId: number;
  active: boolean | undefined;
  now: number;
}
export interface BatchUpdateSubscriptions {
  type: 'BatchUpdateSubscriptions';
  appId: number;
  inputs: { id: number; active: boolean }[];
  now: number;
}
export interface DeleteSubscription {
  type: 'DeleteSubscription';
  appId: number;
  subscriptionId: number;
  now: number;
}

export type AppWebhooksCommand =
  | ConfigureSettings
  | ClearSettings
  | CreateSubscription
  | UpdateSubscription
  | BatchUpdateSubscriptions
  | DeleteSubscription;

/** An input of a batch update that names no subscription of the app (answered, never stored). */
export interface RejectedInput {
  id: number;
}

export const subscriptionNotFound = (appId: number, id: number) =>
  HubSpotError.notFound(`Subscription ${id} of app ${appId} was not found.`);

const initialState = (): AppWebhooksState => ({ settings: null, subscriptions: new Map(), lastSubscriptionId: 0 });

function evolve(state: AppWebhooksState, event: AppWebhooksEvent): AppWebhooksState {
  switch (event.type) {
    case WebhooksEventType.SettingsConfigured: {
      const d = event.data;
      return {
        ...state,
        settings: {
          targetUrl: d.targetUrl,
          maxConcurrentRequests: d.maxConcurrentRequests,
          createdAt: state.settings?.createdAt ?? d.configuredAt,
          updatedAt: d.configuredAt,
        },
      };
    }
    case WebhooksEventType.SettingsCleared:
      return { ...state, settings: null };
    case WebhooksEventType.SubscriptionCreated: {
      const d = event.data;
      const subscriptions = new Map(state.subscriptions);
      subscriptions.set(d.subscriptionId, {
        id: d.subscriptionId,
        eventType: d.eventType,
        propertyName: d.propertyName,
        objectTypeId: d.objectTypeId,
        active: d.active,
        createdAt: d.createdAt,
        updatedAt: d.createdAt,
      });
      return { ...state, subscriptions, lastSubscriptionId: Math.max(state.lastSubscriptionId, d.subscriptionId) };
    }
    case WebhooksEventType.SubscriptionActivationChanged: {
      const d = event.data;
      const existing = state.subscriptions.get(d.subscriptionId);
      if (!existing) return state;
      const subscriptions = new Map(state.subscriptions);
      subscriptions.set(d.subscriptionId, { ...existing, active: d.active, updatedAt: d.updatedAt });
      return { ...state, subscriptions };
    }
    case WebhooksEventType.SubscriptionDeleted: {
      const subscriptions = new Map(state.subscriptions);
      subscriptions.delete(event.data.subscriptionId);
      return { ...state, subscriptions };
    }
  }
}

function configure(c: ConfigureSettings): AppWebhooksEvent[] {
  const errors: ErrorDetail[] = [];
  const problem = targetUrlProblem(c.targetUrl);
  if (problem) errors.push({ message: problem, in: 'targetUrl', code: 'INVALID_URL' });
  const n = c.maxConcurrentRequests;
  if (!Number.isInteger(n) || n < MIN_CONCURRENT_REQUESTS || n > MAX_CONCURRENT_REQUESTS) {
    errors.push({
      message: `maxConcurrentRequests must be an integer from ${MIN_CONCURRENT_REQUESTS} to ${MAX_CONCURRENT_REQUESTS}`,
      in: 'throttling.maxConcurrentRequests',
      code: 'INVALID_INTEGER',
    });
  }
  if (errors.length > 0) throw HubSpotError.validation('Invalid webhook settings.', errors);
  return [
    {
      type: WebhooksEventType.SettingsConfigured,
      data: { appId: c.appId, targetUrl: c.targetUrl, maxConcurrentRequests: n, configuredAt: c.now },
    },
  ];
}

function create(c: CreateSubscription, state: AppWebhooksState): AppWebhooksEvent[] {
  const errors: ErrorDetail[] = [];
  if (!isEventType(c.eventType)) {
    errors.push({ message: `Unknown eventType: ${c.eventType.slice(0, 100)}`, in: 'eventType', code: 'INVALID_ENUM' });
  } else {
    const { object, action } = parseEventType(c.eventType);
    if (action === 'propertyChange' && !c.propertyName) {
      errors.push({
        message: 'propertyName is required for propertyChange subscriptions',
        in: 'propertyName',
        code: 'REQUIRED',
      });
    }
    if (action !== 'propertyChange' && c.propertyName) {
      errors.push({
        message: 'propertyName applies to propertyChange subscriptions only',
        in: 'propertyName',
        code: 'INVALID',
      });
    }
    if (object === 'object' && !c.objectTypeId) {
      errors.push({
        message: 'objectTypeId is required for object.* subscriptions',
        in: 'objectTypeId',
        code: 'REQUIRED',
      });
    }
  }
  if (c.propertyName !== null && !/^[A-Za-z0-9_.-]{1,100}$/.test(c.propertyName)) {
    errors.push({ message: 'propertyName is not a property name', in: 'propertyName', code: 'INVALID' });
  }
  if (c.objectTypeId !== null && !/^(\d+-\d+|[A-Za-z0-9_]{1,100})$/.test(c.objectTypeId)) {
    errors.push({ message: 'objectTypeId is not an object type id', in: 'objectTypeId', code: 'INVALID' });
  }
  if (errors.length > 0) throw HubSpotError.validation('Invalid subscription.', errors);
  const duplicate = [...state.subscriptions.values()].find(
    (s) => s.eventType === c.eventType && s.propertyName === c.propertyName && s.objectTypeId === c.objectTypeId,
  );
  if (duplicate) throw HubSpotError.conflict(`A subscription to ${c.eventType} already exists (id ${duplicate.id}).`);
  if (state.subscriptions.size >= MAX_SUBSCRIPTIONS) {
    throw HubSpotError.validation(`An app has at most ${MAX_SUBSCRIPTIONS} subscriptions.`);
  }
  return [
    {
      type: WebhooksEventType.SubscriptionCreated,
      data: {
        appId: c.appId,
        subscriptionId: state.lastSubscriptionId + 1,
        eventType: c.eventType,
        propertyName: c.propertyName,
        objectTypeId: c.objectTypeId,
        active: c.active,
        createdAt: c.now,
      },
    },
  ];
}

const activation = (appId: number, id: number, active: boolean, now: number): AppWebhooksEvent => ({
  type: WebhooksEventType.SubscriptionActivationChanged,
  data: { appId, subscriptionId: id, active, updatedAt: now },
});

function plan(
  c: AppWebhooksCommand,
  state: AppWebhooksState,
): { events: AppWebhooksEvent[]; rejected: RejectedInput[] } {
  switch (c.type) {
    case 'ConfigureSettings':
      return { events: configure(c), rejected: [] };
    case 'ClearSettings':
      return {
        events: state.settings
          ? [{ type: WebhooksEventType.SettingsCleared, data: { appId: c.appId, clearedAt: c.now } }]
          : [],
        rejected: [],
      };
    case 'CreateSubscription':
      return { events: create(c, state), rejected: [] };
    case 'UpdateSubscription': {
      const existing = state.subscriptions.get(c.subscriptionId);
      if (!existing) throw subscriptionNotFound(c.appId, c.subscriptionId);
      // A PATCH always answers the subscription; only a change of `active` is an event.
      if (c.active === undefined || c.active === existing.active) return { events: [], rejected: [] };
      return { events: [activation(c.appId, c.subscriptionId, c.active, c.now)], rejected: [] };
    }
    case 'BatchUpdateSubscriptions': {
      const events: AppWebhooksEvent[] = [];
      const rejected: RejectedInput[] = [];
      const seen = new Map<number, boolean>();
      for (const input of c.inputs) {
        const existing = state.subscriptions.get(input.id);
        if (!existing) rejected.push({ id: input.id });
        else seen.set(input.id, input.active);
      }
      for (const [id, active] of seen) {
        if (state.subscriptions.get(id)!.active !== active) events.push(activation(c.appId, id, active, c.now));
      }
      return { events, rejected };
    }
    case 'DeleteSubscription': {
      if (!state.subscriptions.has(c.subscriptionId)) throw subscriptionNotFound(c.appId, c.subscriptionId);
      return {
        events: [
          {
            type: WebhooksEventType.SubscriptionDeleted,
            data: { appId: c.appId, subscriptionId: c.subscriptionId, deletedAt: c.now },
          },
        ],
        rejected: [],
      };
    }
  }
}

export const appWebhooksDecider: Decider<AppWebhooksState, AppWebhooksCommand, AppWebhooksEvent, RejectedInput> = {
  initialState,
  evolve,
  decide: (c, s) => plan(c, s).events,
  plan,
};
