import {
  arrayOf,
  bool,
  dateTime,
  int32,
  mapOf,
  num,
  object,
  str,
  strEnum,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';

/**
 * What the CRM records endpoints send, by HubSpot's names (objects.json of v3, 2026-03 and 2026-09;
 * contacts.json, companies.json, deals.json, tickets.json and customObjects.json describe the same
 * bodies on their own paths). Values are strings, as HubSpot sends every property value.
 */
const VALUE_WITH_TIMESTAMP = object(
  { sourceType: str(), timestamp: dateTime(), value: str() },
  { sourceId: str(), updatedByUserId: int32() },
);

const objectFields = () => ({
  required: {
    id: str(),
    properties: mapOf(str()),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    archived: bool(),
  },
  optional: {
    archivedAt: dateTime(),
    propertiesWithHistory: mapOf(arrayOf(VALUE_WITH_TIMESTAMP)),
  },
});

/** SimplePublicObject. */
export const RECORD_SCHEMA: WireSchema = object(objectFields().required, objectFields().optional);

/** SimplePublicObjectWithAssociations: `associations` per asked type (CollectionResponseAssociatedId). */
export const RECORD_WITH_ASSOCIATIONS_SCHEMA: WireSchema = object(objectFields().required, {
  ...objectFields().optional,
  associations: mapOf(
    object(
      { results: arrayOf(object({ id: str(), type: str() })) },
      { paging: object({}, { next: object({ after: str() }, { link: str() }) }) },
    ),
  ),
});

/** SimplePublicUpsertObject. */
export const UPSERTED_RECORD_SCHEMA: WireSchema = object(
  { ...objectFields().required, new: bool() },
  objectFields().optional,
);

/** CollectionResponseSimplePublicObjectWithAssociationsForwardPaging. */
export const RECORD_PAGE_SCHEMA: WireSchema = object(
  { results: arrayOf(RECORD_WITH_ASSOCIATIONS_SCHEMA) },
  { paging: object({}, { next: object({ after: str() }, { link: str() }) }) },
);

const ERROR_DETAIL = object(
  { message: str() },
  { in: str(), code: str(), subCategory: str(), context: mapOf(arrayOf(str())) },
);

/** StandardError: one refused input of a batch. */
const STANDARD_ERROR = object({
  status: str(),
  category: str(),
  message: str(),
  context: mapOf(arrayOf(str())),
  errors: arrayOf(ERROR_DETAIL),
  links: mapOf(str()),
});

const batchOf = (item: WireSchema): WireSchema =>
  object(
    {
      status: strEnum('CANCELED', 'COMPLETE', 'PENDING', 'PROCESSING'),
      results: arrayOf(item),
      startedAt: dateTime(),
      completedAt: dateTime(),
    },
    { errors: arrayOf(STANDARD_ERROR), numErrors: int32(), requestedAt: dateTime(), links: mapOf(str()) },
  );

/** BatchResponseSimplePublicObject, and ...WithErrors (207; 2026-09 carries the errors at 200/201). */
export const RECORD_BATCH_SCHEMA = batchOf(RECORD_SCHEMA);
/** BatchResponseSimplePublicUpsertObject, and ...WithErrors. */
export const UPSERT_BATCH_SCHEMA = batchOf(UPSERTED_RECORD_SCHEMA);

const API = {
  v3: { prefix: '/crm/v3/objects', specFile: 'v3/objects.json' },
  '2026-03': { prefix: '/crm/objects/2026-03', specFile: '2026-03/objects.json' },
  '2026-09': { prefix: '/crm/objects/2026-09', specFile: '2026-09/objects.json' },
} as const;

const BEFORE_2026_09 = ['v3', '2026-03'] as const;

/** Merge is in customObjects.json (and the standard objects' files), not in objects.json. */
const MERGE_API = {
  v3: { prefix: '/crm/v3/objects', specFile: 'v3/customObjects.json' },
  '2026-03': { prefix: '/crm/objects/2026-03', specFile: '2026-03/customObjects.json' },
  '2026-09': { prefix: '/crm/objects/2026-09', specFile: '2026-09/customObjects.json' },
} as const;

const MERGE_OPERATIONS = wireOperations(MERGE_API, [
  { method: 'POST', path: '/{objectType}/merge', status: 200, name: 'SimplePublicObject', schema: RECORD_SCHEMA },
]);

const OBJECTS_OPERATIONS = wireOperations(API, [
  {
    method: 'GET',
    path: '/{objectType}',
    status: 200,
    name: 'CollectionResponseSimplePublicObjectWithAssociationsForwardPaging',
    schema: RECORD_PAGE_SCHEMA,
  },
  { method: 'POST', path: '/{objectType}', status: 201, name: 'SimplePublicObject', schema: RECORD_SCHEMA },
  {
    method: 'GET',
    path: '/{objectType}/{objectId}',
    status: 200,
    name: 'SimplePublicObjectWithAssociations',
    schema: RECORD_WITH_ASSOCIATIONS_SCHEMA,
  },
  { method: 'PATCH', path: '/{objectType}/{objectId}', status: 200, name: 'SimplePublicObject', schema: RECORD_SCHEMA },
  {
    method: 'POST',
    path: '/{objectType}/batch/read',
    status: 200,
    name: 'BatchResponseSimplePublicObject',
    schema: RECORD_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/read',
    status: 207,
    name: 'BatchResponseSimplePublicObjectWithErrors',
    schema: RECORD_BATCH_SCHEMA,
    versions: [...BEFORE_2026_09],
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/create',
    status: 201,
    name: 'BatchResponseSimplePublicObject',
    schema: RECORD_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/create',
    status: 207,
    name: 'BatchResponseSimplePublicObjectWithErrors',
    schema: RECORD_BATCH_SCHEMA,
    versions: [...BEFORE_2026_09],
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/update',
    status: 200,
    name: 'BatchResponseSimplePublicObject',
    schema: RECORD_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/update',
    status: 207,
    name: 'BatchResponseSimplePublicObjectWithErrors',
    schema: RECORD_BATCH_SCHEMA,
    versions: [...BEFORE_2026_09],
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/upsert',
    status: 200,
    name: 'BatchResponseSimplePublicUpsertObject',
    schema: UPSERT_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{objectType}/batch/upsert',
    status: 207,
    name: 'BatchResponseSimplePublicUpsertObjectWithErrors',
    schema: UPSERT_BATCH_SCHEMA,
    versions: [...BEFORE_2026_09],
  },
]);

const typeUsage = () => ({ objectTypeId: str(), singularLabel: str(), pluralLabel: str(), usage: int32() });

/** RecordLimitResponse (limitsTracking.json): counts are int32 (2026-09's format; v3 says int64: ours fit both). */
export const RECORD_LIMITS_SCHEMA: WireSchema = object({
  hubspotDefinedObjectTypes: arrayOf(object({ ...typeUsage(), limit: int32(), percentage: num() })),
  customObjectTypes: object({
    overallLimit: int32(),
    overallUsage: int32(),
    overallPercentage: num(),
    byObjectType: arrayOf(object(typeUsage())),
  }),
});

export const RECORD_LIMITS_WIRE_OPERATIONS: WireOperation[] = wireOperations(
  {
    v3: { prefix: '/crm/v3/limits', specFile: 'limitsTracking.json' },
    '2026-03': { prefix: '/crm/limits/2026-03', specFile: '2026-03/limitsTracking.json' },
    '2026-09': { prefix: '/crm/limits/2026-09', specFile: '2026-09/limitsTracking.json' },
  },
  [{ method: 'GET', path: '/records', status: 200, name: 'RecordLimitResponse', schema: RECORD_LIMITS_SCHEMA }],
);

export const CRM_RECORDS_WIRE_OPERATIONS: WireOperation[] = [
  ...OBJECTS_OPERATIONS,
  ...MERGE_OPERATIONS,
  ...RECORD_LIMITS_WIRE_OPERATIONS,
];
