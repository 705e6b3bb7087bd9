import {
  arrayOf,
  dateTime,
  int32,
  int64,
  mapOf,
  object,
  str,
  strEnum,
  uuid,
  type WireOperation,
  type WireSchema,
} from '../../platform/http/wire-schema';
import { CONDITION_OPERATORS, JOURNAL_ACTIONS, SUBSCRIPTION_TYPES } from '../domain/journal-events';

/** What the webhooks journal sends (HubSpot's webhooksJournal.json, 2026-03), closed: exactly the fields we send. */

export const JOURNAL_FETCH_SCHEMA: WireSchema = object({ currentOffset: uuid(), expiresAt: dateTime(), url: str() });

const BATCH_STATUS = strEnum('CANCELED', 'COMPLETE', 'PENDING', 'PROCESSING');

export const JOURNAL_BATCH_SCHEMA: WireSchema = object({
  completedAt: dateTime(),
  results: arrayOf(JOURNAL_FETCH_SCHEMA),
  startedAt: dateTime(),
  status: BATCH_STATUS,
});

const STANDARD_ERROR: WireSchema = object(
  {
    category: str(),
    context: mapOf(arrayOf(str())),
    errors: arrayOf(object({ message: str() }, { in: str(), code: str() })),
    links: mapOf(str()),
    message: str(),
    status: str(),
  },
  { id: str() },
);

export const JOURNAL_BATCH_WITH_ERRORS_SCHEMA: WireSchema = object({
  completedAt: dateTime(),
  errors: arrayOf(STANDARD_ERROR),
  numErrors: int32(),
  results: arrayOf(JOURNAL_FETCH_SCHEMA),
  startedAt: dateTime(),
  status: BATCH_STATUS,
});

export const SUBSCRIPTION_SCHEMA: WireSchema = object(
  {
    actions: arrayOf(strEnum(...JOURNAL_ACTIONS)),
    appId: int64(),
    createdAt: dateTime(),
    id: int64(),
    objectTypeId: str(),
    subscriptionType: strEnum(...SUBSCRIPTION_TYPES),
    updatedAt: dateTime(),
  },
  {
    associatedObjectTypeIds: arrayOf(str()),
    objectIds: arrayOf(int64()),
    portalId: int64(),
    properties: arrayOf(str()),
  },
);

export const SUBSCRIPTION_LIST_SCHEMA: WireSchema = object({ results: arrayOf(SUBSCRIPTION_SCHEMA) });

const CONDITION_SCHEMA: WireSchema = object(
  { filterType: strEnum('CRM_OBJECT_PROPERTY'), operator: strEnum(...CONDITION_OPERATORS), property: str() },
  { value: str(), values: arrayOf(str()) },
);

export const FILTER_CREATE_SCHEMA: WireSchema = object({ filterId: int64() });

export const FILTER_SCHEMA: WireSchema = object({
  createdAt: int64(),
  filter: object({ conditions: arrayOf(CONDITION_SCHEMA) }),
  id: int64(),
});

export const FILTER_LIST_SCHEMA: WireSchema = arrayOf(FILTER_SCHEMA);

export const SNAPSHOT_BATCH_SCHEMA: WireSchema = object({
  snapshotResponses: arrayOf(
    object({ objectId: int64(), objectTypeId: str(), portalId: int64(), snapshotStatusId: uuid() }),
  ),
});

export const SNAPSHOT_STATUS_SCHEMA: WireSchema = object(
  {
    id: uuid(),
    initiatedAt: int64(),
    status: strEnum('EXPIRED', 'FAILED', 'IN_PROGRESS', 'PENDING', 'SUCCESS'),
  },
  {
    completedAt: int64(),
    errorCode: strEnum('INTERNAL_ERROR', 'PERMISSION_DENIED', 'TIMEOUT', 'VALIDATION_ERROR'),
    message: str(),
  },
);

const SPEC = '2026-03/webhooksJournal.json';

const op = (
  method: WireOperation['method'],
  path: string,
  name: string,
  schema: WireSchema,
  status = 200,
): WireOperation => ({
  method,
  path: `/webhooks-journal${path}`,
  version: '2026-03',
  status,
  name,
  specFile: SPEC,
  schema,
});

const reads = (journal: 'journal' | 'journal-local'): WireOperation[] => [
  op('GET', `/${journal}/2026-03/earliest`, 'JournalFetchResponse', JOURNAL_FETCH_SCHEMA),
  op('GET', `/${journal}/2026-03/latest`, 'JournalFetchResponse', JOURNAL_FETCH_SCHEMA),
  op('GET', `/${journal}/2026-03/offset/{offset}/next`, 'JournalFetchResponse', JOURNAL_FETCH_SCHEMA),
  op('GET', `/${journal}/2026-03/batch/earliest/{count}`, 'BatchResponseJournalFetchResponse', JOURNAL_BATCH_SCHEMA),
  op('GET', `/${journal}/2026-03/batch/latest/{count}`, 'BatchResponseJournalFetchResponse', JOURNAL_BATCH_SCHEMA),
  op(
    'GET',
    `/${journal}/2026-03/batch/{offset}/next/{count}`,
    'BatchResponseJournalFetchResponse',
    JOURNAL_BATCH_SCHEMA,
  ),
  op('POST', `/${journal}/2026-03/batch/read`, 'BatchResponseJournalFetchResponse', JOURNAL_BATCH_SCHEMA),
  op(
    'POST',
    `/${journal}/2026-03/batch/read`,
    'BatchResponseJournalFetchResponseWithErrors',
    JOURNAL_BATCH_WITH_ERRORS_SCHEMA,
    207,
  ),
  op('GET', `/${journal}/2026-03/status/{statusId}`, 'SnapshotStatusResponse', SNAPSHOT_STATUS_SCHEMA),
];

/**
 * Every success answer of the webhooks journal. HubSpot's spec states no 200 body for the single
 * reads (earliest, latest, next: only `default`); its guide shows them answering a
 * JournalFetchResponse, which is what they send here.
 */
export const JOURNAL_WIRE_OPERATIONS: WireOperation[] = [
  ...reads('journal'),
  ...reads('journal-local'),
  op('GET', '/subscriptions/2026-03', 'CollectionResponseSubscriptionResponseNoPaging', SUBSCRIPTION_LIST_SCHEMA),
  op('POST', '/subscriptions/2026-03', 'SubscriptionResponse', SUBSCRIPTION_SCHEMA),
  op('GET', '/subscriptions/2026-03/{subscriptionId}', 'SubscriptionResponse', SUBSCRIPTION_SCHEMA),
  op('POST', '/subscriptions/2026-03/filters', 'FilterCreateResponse', FILTER_CREATE_SCHEMA),
  op('GET', '/subscriptions/2026-03/filters/{filterId}', 'FilterResponse', FILTER_SCHEMA),
  op('GET', '/subscriptions/2026-03/filters/subscription/{subscriptionId}', 'FilterResponse', FILTER_LIST_SCHEMA),
  op('POST', '/snapshots/2026-03/crm', 'CrmObjectSnapshotBatchResponse', SNAPSHOT_BATCH_SCHEMA),
];
