import {
  arrayOf,
  bool,
  dateTime,
  int32,
  mapOf,
  object,
  str,
  strEnum,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';
import { EVENT_TYPES } from '../domain/subscription-types';

/**
 * What the webhooks API sends (HubSpot's webhooks.json of v3, 2026-03 and 2026-09: the same shapes
 * at every version), closed: exactly the fields we send.
 */
export const SETTINGS_SCHEMA: WireSchema = object(
  { createdAt: dateTime(), targetUrl: str(), throttling: object({ maxConcurrentRequests: int32() }) },
  { updatedAt: dateTime() },
);

export const SUBSCRIPTION_SCHEMA: WireSchema = object(
  { active: bool(), createdAt: dateTime(), eventType: strEnum(...EVENT_TYPES), id: str() },
  { propertyName: str(), objectTypeId: str(), updatedAt: dateTime() },
);

export const SUBSCRIPTION_LIST_SCHEMA: WireSchema = object({ results: arrayOf(SUBSCRIPTION_SCHEMA) });

const BATCH_STATUS = strEnum('CANCELED', 'COMPLETE', 'PENDING', 'PROCESSING');

export const SUBSCRIPTION_BATCH_SCHEMA: WireSchema = object({
  completedAt: dateTime(),
  results: arrayOf(SUBSCRIPTION_SCHEMA),
  startedAt: dateTime(),
  status: BATCH_STATUS,
});

const STANDARD_ERROR: WireSchema = object({
  category: str(),
  context: mapOf(arrayOf(str())),
  errors: arrayOf(object({ message: str() })),
  links: mapOf(str()),
  message: str(),
  status: str(),
});

export const SUBSCRIPTION_BATCH_WITH_ERRORS_SCHEMA: WireSchema = object({
  completedAt: dateTime(),
  errors: arrayOf(STANDARD_ERROR),
  numErrors: int32(),
  results: arrayOf(SUBSCRIPTION_SCHEMA),
  startedAt: dateTime(),
  status: BATCH_STATUS,
});

/** 2026-09 states no 207: unknown ids come back in the 200's optional `errors`. */
export const SUBSCRIPTION_BATCH_2026_09_SCHEMA: WireSchema = object(
  { completedAt: dateTime(), results: arrayOf(SUBSCRIPTION_SCHEMA), startedAt: dateTime(), status: BATCH_STATUS },
  { errors: arrayOf(STANDARD_ERROR), numErrors: int32() },
);

export const WEBHOOKS_WIRE_OPERATIONS: WireOperation[] = wireOperations(
  {
    v3: { prefix: '/webhooks/v3/{appId}', specFile: 'v3/webhooks.json' },
    '2026-03': { prefix: '/webhooks/2026-03/{appId}', specFile: '2026-03/webhooks.json' },
    '2026-09': { prefix: '/app-webhooks/2026-09/{appId}', specFile: '2026-09/webhooks.json' },
  },
  [
    { method: 'GET', path: '/settings', status: 200, name: 'SettingsResponse', schema: SETTINGS_SCHEMA },
    { method: 'PUT', path: '/settings', status: 200, name: 'SettingsResponse', schema: SETTINGS_SCHEMA },
    {
      method: 'GET',
      path: '/subscriptions',
      status: 200,
      name: 'SubscriptionListResponse',
      schema: SUBSCRIPTION_LIST_SCHEMA,
    },
    { method: 'POST', path: '/subscriptions', status: 201, name: 'SubscriptionResponse', schema: SUBSCRIPTION_SCHEMA },
    {
      method: 'GET',
      path: '/subscriptions/{subscriptionId}',
      status: 200,
      name: 'SubscriptionResponse',
      schema: SUBSCRIPTION_SCHEMA,
    },
    {
      method: 'PATCH',
      path: '/subscriptions/{subscriptionId}',
      status: 200,
      name: 'SubscriptionResponse',
      schema: SUBSCRIPTION_SCHEMA,
    },
    {
      method: 'POST',
      path: '/subscriptions/batch/update',
      status: 200,
      name: 'BatchResponseSubscriptionResponse',
      schema: {
        v3: SUBSCRIPTION_BATCH_SCHEMA,
        '2026-03': SUBSCRIPTION_BATCH_SCHEMA,
        '2026-09': SUBSCRIPTION_BATCH_2026_09_SCHEMA,
      },
    },
    {
      method: 'POST',
      path: '/subscriptions/batch/update',
      status: 207,
      name: 'BatchResponseSubscriptionResponseWithErrors',
      schema: SUBSCRIPTION_BATCH_WITH_ERRORS_SCHEMA,
      versions: ['v3', '2026-03'],
    },
  ],
);
