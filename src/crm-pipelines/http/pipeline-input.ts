import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { PipelineInput, StageInput } from '../domain/pipelines.decider';
import type {
  PipelineCreateDto,
  PipelinePatchDto,
  PipelineReplaceDto,
  StageCreateDto,
  StagePatchDto,
  StageReplaceDto,
} from './pipeline.dto';

/**
 * The decider's inputs read from the bodies' DTOs (`pipeline.dto.ts`), and the query and path values
 * of the pipelines API.
 */
const text = (metadata: Record<string, string | number | boolean>): Record<string, string> =>
  Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)]));

const stageOf = (s: StageReplaceDto & { stageId?: string }): StageInput => ({
  label: s.label,
  displayOrder: s.displayOrder,
  metadata: text(s.metadata),
  ...(s.stageId !== undefined ? { stageId: s.stageId } : {}),
});

/** PipelineInput (POST) and PipelineReplaceInput (PUT: no `pipelineId`, its DTO drops it). */
export const pipelineInputOf = (body: PipelineCreateDto | PipelineReplaceDto): PipelineInput => ({
  label: body.label,
  displayOrder: body.displayOrder,
  stages: body.stages.map(stageOf),
  ...('pipelineId' in body && body.pipelineId !== undefined ? { pipelineId: body.pipelineId } : {}),
});

/** PipelineStageInput (POST) and PipelineStageReplaceInput (PUT). */
export const stageInputOf = (body: StageCreateDto | StageReplaceDto): StageInput => stageOf(body);

/** PipelinePatchInput: only the fields sent. */
export const pipelinePatchOf = (
  body: PipelinePatchDto,
): { label?: string; displayOrder?: number; archived?: boolean } => ({
  ...(body.label !== undefined ? { label: body.label } : {}),
  ...(body.displayOrder !== undefined ? { displayOrder: body.displayOrder } : {}),
  ...(body.archived !== undefined ? { archived: body.archived } : {}),
});

/** PipelineStagePatchInput: only the fields sent. */
export const stagePatchOf = (
  body: StagePatchDto,
): { label?: string; displayOrder?: number; archived?: boolean; metadata?: Record<string, string> } => ({
  ...pipelinePatchOf(body),
  ...(body.metadata !== undefined ? { metadata: text(body.metadata) } : {}),
});

/** `validateReferencesBeforeDelete` / `validateDealStageUsagesBeforeDelete`: booleans in the query, false by default. */
export function parseQueryFlag(raw: unknown, name: string): boolean {
  const v = Array.isArray(raw) ? (raw[0] as unknown) : raw;
  if (v === undefined || v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw HubSpotError.validation(`Invalid input: ${name}`, [
    { message: `${name} must be true or false`, in: name, code: 'INVALID' },
  ]);
}

/** A path segment (pipeline or stage id): at most 100 characters, no NUL. */
export function parsePathId(raw: string, name: string): string {
  if (raw.length === 0 || raw.length > 100 || raw.includes('\u0000')) {
    throw HubSpotError.validation(`Invalid input: ${name}`, [
      { message: `${name} is not valid`, in: name, code: 'INVALID' },
    ]);
  }
  return raw;
}
