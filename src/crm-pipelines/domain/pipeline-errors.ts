import { HubSpotError } from '../../platform/errors/hubspot-error';

/** The pipelines module's errors, one named factory each. */

/** HubSpot's answer for a type the pipelines API does not know. */
export function unknownPipelineObjectType(raw: string): HubSpotError {
  return HubSpotError.validation(`Unable to infer object type from: ${raw}`, [
    { message: `${raw} is not an object type with pipelines (deals, tickets)`, in: 'objectType', code: 'INVALID' },
  ]);
}

export function pipelineNotFound(pipelineId: string): HubSpotError {
  return HubSpotError.notFound(`Unable to find pipeline with id ${pipelineId}`);
}

export function stageNotFound(pipelineId: string, stageId: string): HubSpotError {
  return HubSpotError.notFound(`Unable to find stage ${stageId} in pipeline ${pipelineId}`);
}

export function pipelineLabelTaken(label: string): HubSpotError {
  return HubSpotError.conflict(`A pipeline with label ${label} already exists.`, 'PIPELINE_LABEL_ALREADY_EXISTS');
}

export function pipelineIdTaken(id: string): HubSpotError {
  return HubSpotError.conflict(`A pipeline or stage with id ${id} already exists.`, 'PIPELINE_ID_ALREADY_EXISTS');
}

export function invalidPipelineInput(field: string, message: string, code = 'INVALID'): HubSpotError {
  return HubSpotError.validation(message, [{ message, in: field, code }]);
}

/** A deal stage without a probability, or with one outside 0.0 .. 1.0. */
export function invalidProbability(field: string): HubSpotError {
  return invalidPipelineInput(
    field,
    'Deal pipeline stages require metadata.probability, a number between 0.0 and 1.0.',
    'INVALID_PROBABILITY',
  );
}

export function lastPipeline(): HubSpotError {
  return invalidPipelineInput('pipelineId', 'An object type must keep at least one pipeline.', 'LAST_PIPELINE');
}

export function lastStage(): HubSpotError {
  return invalidPipelineInput('stageId', 'A pipeline must keep at least one stage.', 'LAST_STAGE');
}

/** Asked to validate usages (`validateReferencesBeforeDelete` / `validateDealStageUsagesBeforeDelete`): stages still hold records. */
export function stagesInUse(pipelineId: string, used: ReadonlyArray<{ stageId: string; count: number }>): HubSpotError {
  const list = used.map((u) => `${u.stageId} (${u.count})`).join(', ');
  return new HubSpotError(
    400,
    'VALIDATION_ERROR',
    `Pipeline ${pipelineId} has stages in use by records and cannot be changed that way: ${list}.`,
    {
      subCategory: 'PIPELINE_STAGE_IN_USE',
      context: { stageIds: used.map((u) => u.stageId) },
      errors: used.map((u) => ({
        message: `stage ${u.stageId} is the stage of ${u.count} record(s)`,
        in: 'stageId',
        code: 'STAGE_IN_USE',
      })),
    },
  );
}

export function pipelineLimitReached(limit: number): HubSpotError {
  return invalidPipelineInput(
    'pipeline',
    `The account has reached its limit of ${limit} pipelines for this object type.`,
    'PIPELINE_LIMIT_REACHED',
  );
}

export function stageLimitReached(limit: number): HubSpotError {
  return invalidPipelineInput('stages', `A pipeline takes at most ${limit} stages.`, 'STAGE_LIMIT_REACHED');
}
