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
  type WireEndpoint,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';

/**
 * What the associations v4 endpoints send, by HubSpot's names (v4/associations.json,
 * v4/associationLabels.json, v4/associationsSchema.json and their 2026-03 / 2026-09 forms).
 */
/** The categories we send (HubSpot's enums also list WORK, which v4's labels file does not). */
const CATEGORY = strEnum('HUBSPOT_DEFINED', 'INTEGRATOR_DEFINED', 'USER_DEFINED');
const OBJECT_ID = object({ id: str() });

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

export const LABELS_BETWEEN_SCHEMA: WireSchema = object({
  fromObjectTypeId: str(),
  fromObjectId: str(),
  toObjectTypeId: str(),
  toObjectId: str(),
  labels: arrayOf(str()),
});

const TYPE_WITH_LABEL = object({ category: CATEGORY, typeId: int32() }, { label: str() });
const ASSOCIATED_OBJECT = object({ toObjectId: str(), associationTypes: arrayOf(TYPE_WITH_LABEL) });
const PAGING = object({}, { next: object({ after: str() }, { link: str() }) });

export const ASSOCIATIONS_PAGE_SCHEMA: WireSchema = object({ results: arrayOf(ASSOCIATED_OBJECT) }, { paging: PAGING });

export const DEFAULT_BATCH_SCHEMA: WireSchema = batchOf(
  object({
    from: OBJECT_ID,
    to: OBJECT_ID,
    associationSpec: object({ associationCategory: CATEGORY, associationTypeId: int32() }),
  }),
);
export const LABELS_BATCH_SCHEMA: WireSchema = batchOf(LABELS_BETWEEN_SCHEMA);
export const READ_BATCH_SCHEMA: WireSchema = batchOf(
  object({ from: OBJECT_ID, to: arrayOf(ASSOCIATED_OBJECT) }, { paging: PAGING }),
);
/** 2026-03's BatchResponse and 2026-09's BatchResponseVoid: no results, errors when any. */
export const VOID_BATCH_SCHEMA: WireSchema = batchOf(object({}));

/** AssociationSpecWithLabel of the labels endpoints. */
export const LABELS_SCHEMA: WireSchema = object({
  results: arrayOf(
    object({ category: CATEGORY, typeId: int32() }, { label: str(), fromObjectTypeId: str(), toObjectTypeId: str() }),
  ),
});

const OBJECTS_ENDPOINTS: WireEndpoint[] = [
  {
    method: 'GET',
    path: '/{objectType}/{objectId}/associations/{toObjectType}',
    status: 200,
    name: 'CollectionResponseMultiAssociatedObjectWithLabelForwardPaging',
    schema: ASSOCIATIONS_PAGE_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'PUT',
    path: '/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}',
    status: 201,
    name: 'LabelsBetweenObjectPair',
    schema: LABELS_BETWEEN_SCHEMA,
  },
  {
    method: 'PUT',
    // HubSpot names these two {fromObjectType}/{fromObjectId}; the router needs the names the records
    // routes use at the same place (the conformance suite compares it with HubSpot's path).
    path: '/{objectType}/{objectId}/associations/default/{toObjectType}/{toObjectId}',
    status: 200,
    name: 'BatchResponsePublicDefaultAssociation',
    schema: DEFAULT_BATCH_SCHEMA,
  },
];

const BATCH_ENDPOINTS: WireEndpoint[] = [
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/create',
    status: 201,
    name: 'BatchResponseLabelsBetweenObjectPair',
    schema: LABELS_BATCH_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/create',
    status: 207,
    name: 'BatchResponseLabelsBetweenObjectPairWithErrors',
    schema: LABELS_BATCH_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/create',
    status: 200,
    name: 'BatchResponseLabelsBetweenObjectPair',
    schema: LABELS_BATCH_SCHEMA,
    versions: ['2026-09'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/associate/default',
    status: 200,
    name: 'BatchResponsePublicDefaultAssociation',
    schema: DEFAULT_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/read',
    status: 200,
    name: 'BatchResponsePublicAssociationMultiWithLabel',
    schema: READ_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/read',
    status: 207,
    name: 'BatchResponsePublicAssociationMultiWithLabelWithErrors',
    schema: READ_BATCH_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/archive',
    status: 200,
    name: 'BatchResponse',
    schema: VOID_BATCH_SCHEMA,
    versions: ['2026-03', '2026-09'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/labels/archive',
    status: 200,
    name: 'BatchResponse',
    schema: VOID_BATCH_SCHEMA,
    versions: ['2026-03', '2026-09'],
  },
];

/** The undated v4 paths are served as the `v3` family (the service's name for HubSpot's undated versions). */
const ASSOCIATIONS_WIRE_OPERATIONS: WireOperation[] = [
  ...wireOperations(
    {
      v3: { prefix: '/crm/v4/objects', specFile: 'v4/associations.json' },
      '2026-03': { prefix: '/crm/objects/2026-03', specFile: '2026-03/associations.json' },
      '2026-09': { prefix: '/crm/objects/2026-09', specFile: '2026-09/associations.json' },
    },
    OBJECTS_ENDPOINTS,
  ),
  ...wireOperations(
    {
      v3: { prefix: '/crm/v4/associations', specFile: 'v4/associations.json' },
      '2026-03': { prefix: '/crm/associations/2026-03', specFile: '2026-03/associations.json' },
      '2026-09': { prefix: '/crm/associations/2026-09', specFile: '2026-09/associations.json' },
    },
    BATCH_ENDPOINTS,
  ),
  ...wireOperations(
    {
      v3: { prefix: '/crm/v4/associations', specFile: 'v4/associationLabels.json' },
      '2026-03': { prefix: '/crm/associations/2026-03', specFile: '2026-03/associationsSchema.json' },
      '2026-09': { prefix: '/crm/associations/2026-09', specFile: '2026-09/associationsSchema.json' },
    },
    [
      {
        method: 'GET',
        path: '/{fromObjectType}/{toObjectType}/labels',
        status: 200,
        name: 'CollectionResponseAssociationSpecWithLabelNoPaging',
        schema: LABELS_SCHEMA,
      },
      // definitionsApi.create: the new label's two types.
      {
        method: 'POST',
        path: '/{fromObjectType}/{toObjectType}/labels',
        status: 200,
        name: 'CollectionResponseAssociationSpecWithLabelNoPaging',
        schema: LABELS_SCHEMA,
      },
    ],
  ),
];

const CONFIGURATION = object(
  { category: CATEGORY, typeId: int32() },
  { label: str(), userEnforcedMaxToObjectIds: int32() },
);
export const CONFIGURATIONS_SCHEMA: WireSchema = object({ results: arrayOf(CONFIGURATION) });
export const CONFIGURATIONS_BATCH_SCHEMA: WireSchema = batchOf(CONFIGURATION);
export const CONFIGURATION_UPDATES_BATCH_SCHEMA: WireSchema = batchOf(
  object({ category: CATEGORY, typeId: int32() }, { userEnforcedMaxToObjectIds: int32() }),
);

/** ObjectTypeNearOrAtAssociationLimit (limitsTracking.json). */
export const NEAR_OR_AT_LIMIT_SCHEMA: WireSchema = object({
  results: arrayOf(
    object({
      objectTypeId: str(),
      singularLabel: str(),
      pluralLabel: str(),
      hasRecordsNearLimit: bool(),
      hasRecordsAtLimit: bool(),
    }),
  ),
});

/** AssociationRecordLimitResponse (limitsTracking.json). */
export const ASSOCIATION_RECORD_LIMIT_SCHEMA: WireSchema = object({
  limit: int32(),
  totalRecordsAtLimit: int32(),
  totalRecordsNearLimit: int32(),
  // int32 as 2026-09 says (v3 says int64: ours fit both).
  atLimitFromRecordSamples: arrayOf(object({ objectId: int32(), label: str() })),
  nearLimitFromRecordSamples: arrayOf(object({ objectId: int32(), label: str(), usage: int32(), percentage: num() })),
});

const CONFIGURATION_ENDPOINTS: WireEndpoint[] = [
  {
    method: 'GET',
    path: '/all',
    status: 200,
    name: 'CollectionResponsePublicAssociationDefinitionUserConfigurationNoPaging',
    schema: CONFIGURATIONS_SCHEMA,
  },
  {
    method: 'GET',
    path: '/{fromObjectType}/{toObjectType}',
    status: 200,
    name: 'CollectionResponsePublicAssociationDefinitionUserConfigurationNoPaging',
    schema: CONFIGURATIONS_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/create',
    status: 201,
    name: 'BatchResponsePublicAssociationDefinitionUserConfiguration',
    schema: CONFIGURATIONS_BATCH_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/create',
    status: 207,
    name: 'BatchResponsePublicAssociationDefinitionUserConfigurationWithErrors',
    schema: CONFIGURATIONS_BATCH_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/create',
    status: 200,
    name: 'BatchResponsePublicAssociationDefinitionUserConfiguration',
    schema: CONFIGURATIONS_BATCH_SCHEMA,
    versions: ['2026-09'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/update',
    status: 200,
    name: 'BatchResponsePublicAssociationDefinitionConfigurationUpdateResult',
    schema: CONFIGURATION_UPDATES_BATCH_SCHEMA,
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/update',
    status: 207,
    name: 'BatchResponsePublicAssociationDefinitionConfigurationUpdateResultWithErrors',
    schema: CONFIGURATION_UPDATES_BATCH_SCHEMA,
    versions: ['v3', '2026-03'],
  },
  {
    method: 'POST',
    path: '/{fromObjectType}/{toObjectType}/batch/purge',
    status: 200,
    name: 'BatchResponse',
    schema: VOID_BATCH_SCHEMA,
    versions: ['2026-03', '2026-09'],
  },
];

const ASSOCIATION_LIMITS_WIRE_OPERATIONS: WireOperation[] = [
  ...wireOperations(
    {
      v3: { prefix: '/crm/associations/v4/definitions/configurations', specFile: 'v4/associationsSchema.json' },
      '2026-03': {
        prefix: '/crm/associations/2026-03/definitions/configurations',
        specFile: '2026-03/associationsSchema.json',
      },
      '2026-09': {
        prefix: '/crm/associations/2026-09/definitions/configurations',
        specFile: '2026-09/associationsSchema.json',
      },
    },
    CONFIGURATION_ENDPOINTS,
  ),
  ...wireOperations(
    {
      v3: { prefix: '/crm/v3/limits/associations/records', specFile: 'limitsTracking.json' },
      '2026-03': { prefix: '/crm/limits/2026-03/associations/records', specFile: '2026-03/limitsTracking.json' },
      '2026-09': { prefix: '/crm/limits/2026-09/associations/records', specFile: '2026-09/limitsTracking.json' },
    },
    [
      {
        method: 'GET',
        path: '/from',
        status: 200,
        name: 'CollectionResponseObjectTypeNearOrAtAssociationLimitNoPaging',
        schema: NEAR_OR_AT_LIMIT_SCHEMA,
      },
      {
        method: 'GET',
        path: '/{fromObjectTypeId}/to',
        status: 200,
        name: 'CollectionResponseObjectTypeNearOrAtAssociationLimitNoPaging',
        schema: NEAR_OR_AT_LIMIT_SCHEMA,
      },
      {
        method: 'GET',
        path: '/{fromObjectTypeId}/{toObjectTypeId}',
        status: 200,
        name: 'AssociationRecordLimitResponse',
        schema: ASSOCIATION_RECORD_LIMIT_SCHEMA,
      },
    ],
  ),
];

export const CRM_ASSOCIATIONS_WIRE_OPERATIONS: WireOperation[] = [
  ...ASSOCIATIONS_WIRE_OPERATIONS,
  ...ASSOCIATION_LIMITS_WIRE_OPERATIONS,
];
