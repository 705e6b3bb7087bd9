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

/** What the pipelines endpoints send, by HubSpot's names (pipelines.json of v3, 2026-03 and 2026-09). */
export const PIPELINE_STAGE_SCHEMA: WireSchema = object(
  {
    id: str(),
    label: str(),
    displayOrder: int32(),
    metadata: mapOf(str()),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    archived: bool(),
    writePermissions: strEnum('CRM_PERMISSIONS_ENFORCEMENT', 'INTERNAL_ONLY', 'READ_ONLY'),
  },
  { archivedAt: dateTime() },
);

export const PIPELINE_SCHEMA: WireSchema = object(
  {
    id: str(),
    label: str(),
    displayOrder: int32(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    archived: bool(),
    stages: arrayOf(PIPELINE_STAGE_SCHEMA),
  },
  { archivedAt: dateTime() },
);

export const PIPELINE_AUDIT_SCHEMA: WireSchema = object(
  { action: str(), identifier: str(), portalId: int32() },
  { fromUserId: int32(), message: str(), rawObject: { type: 'object' }, timestamp: dateTime() },
);

const resultsOf = (item: WireSchema) => object({ results: arrayOf(item) });
export const PIPELINES_SCHEMA = resultsOf(PIPELINE_SCHEMA);
export const PIPELINE_STAGES_SCHEMA = resultsOf(PIPELINE_STAGE_SCHEMA);
export const PIPELINE_AUDITS_SCHEMA = resultsOf(PIPELINE_AUDIT_SCHEMA);

const PIPELINES_WIRE_OPERATIONS: WireOperation[] = wireOperations(
  {
    v3: { prefix: '/crm/v3/pipelines', specFile: 'v3/pipelines.json' },
    '2026-03': { prefix: '/crm/pipelines/2026-03', specFile: '2026-03/pipelines.json' },
    '2026-09': { prefix: '/crm/pipelines/2026-09', specFile: '2026-09/pipelines.json' },
  },
  [
    {
      method: 'GET',
      path: '/{objectType}',
      status: 200,
      name: 'CollectionResponsePipelineNoPaging',
      schema: PIPELINES_SCHEMA,
    },
    { method: 'POST', path: '/{objectType}', status: 201, name: 'Pipeline', schema: PIPELINE_SCHEMA },
    { method: 'GET', path: '/{objectType}/{pipelineId}', status: 200, name: 'Pipeline', schema: PIPELINE_SCHEMA },
    { method: 'PUT', path: '/{objectType}/{pipelineId}', status: 200, name: 'Pipeline', schema: PIPELINE_SCHEMA },
    { method: 'PATCH', path: '/{objectType}/{pipelineId}', status: 200, name: 'Pipeline', schema: PIPELINE_SCHEMA },
    {
      method: 'GET',
      path: '/{objectType}/{pipelineId}/audit',
      status: 200,
      name: 'CollectionResponsePublicAuditInfoNoPaging',
      schema: PIPELINE_AUDITS_SCHEMA,
    },
    {
      method: 'GET',
      path: '/{objectType}/{pipelineId}/stages',
      status: 200,
      name: 'CollectionResponsePipelineStageNoPaging',
      schema: PIPELINE_STAGES_SCHEMA,
    },
    {
      method: 'POST',
      path: '/{objectType}/{pipelineId}/stages',
      status: 201,
      name: 'PipelineStage',
      schema: PIPELINE_STAGE_SCHEMA,
    },
    {
      method: 'GET',
      path: '/{objectType}/{pipelineId}/stages/{stageId}',
      status: 200,
      name: 'PipelineStage',
      schema: PIPELINE_STAGE_SCHEMA,
    },
    {
      method: 'PUT',
      path: '/{objectType}/{pipelineId}/stages/{stageId}',
      status: 200,
      name: 'PipelineStage',
      schema: PIPELINE_STAGE_SCHEMA,
    },
    {
      method: 'PATCH',
      path: '/{objectType}/{pipelineId}/stages/{stageId}',
      status: 200,
      name: 'PipelineStage',
      schema: PIPELINE_STAGE_SCHEMA,
    },
    {
      method: 'GET',
      path: '/{objectType}/{pipelineId}/stages/{stageId}/audit',
      status: 200,
      name: 'CollectionResponsePublicAuditInfoNoPaging',
      schema: PIPELINE_AUDITS_SCHEMA,
    },
  ],
);

const typeUsage = () => ({ objectTypeId: str(), singularLabel: str(), pluralLabel: str(), usage: int32() });

/** PipelineLimitResponse (limitsTracking.json). */
export const PIPELINE_LIMITS_SCHEMA: WireSchema = object({
  hubspotDefinedObjectTypes: arrayOf(object({ ...typeUsage(), limit: int32(), percentage: num() })),
  customObjectTypes: object({
    overallLimit: int32(),
    overallUsage: int32(),
    overallPercentage: num(),
    byObjectType: arrayOf(object(typeUsage())),
  }),
});

export const PIPELINE_LIMITS_WIRE_OPERATIONS: WireOperation[] = wireOperations(
  {
    v3: { prefix: '/crm/v3/limits', specFile: 'limitsTracking.json' },
    '2026-03': { prefix: '/crm/limits/2026-03', specFile: '2026-03/limitsTracking.json' },
    '2026-09': { prefix: '/crm/limits/2026-09', specFile: '2026-09/limitsTracking.json' },
  },
  [{ method: 'GET', path: '/pipelines', status: 200, name: 'PipelineLimitResponse', schema: PIPELINE_LIMITS_SCHEMA }],
);

export const CRM_PIPELINES_WIRE_OPERATIONS: WireOperation[] = [
  ...PIPELINES_WIRE_OPERATIONS,
  ...PIPELINE_LIMITS_WIRE_OPERATIONS,
];
