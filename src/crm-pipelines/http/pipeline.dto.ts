import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  NotContains,
  registerDecorator,
} from 'class-validator';
import { NestedArray } from '../../platform/http/nested-array';

/**
 * The pipelines API's bodies (pipelines.json of v3, 2026-03 and 2026-09) as class-validator DTOs.
 * What depends on the pipeline's object type (a deal stage's probability, a ticket stage's state)
 * and on the account (unique labels, the number of stages and pipelines) is the decider's.
 */
const MAX_LABEL = 255;
const MIN_INT32 = -2_147_483_648;
const MAX_INT32 = 2_147_483_647;
/** Wider than HubSpot's 100 stages (the decider's rule, with its own text): only a bound on cost here. */
const BOUND_STAGES = 1000;
const MAX_METADATA_KEYS = 100;

/** A label: trimmed, non-empty, at most 255 characters, no NUL. */
const Label = (required: boolean) =>
  applyDecorators(
    required ? ApiProperty({ maxLength: MAX_LABEL }) : ApiPropertyOptional({ maxLength: MAX_LABEL }),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    required ? IsDefined() : IsOptional(),
    IsString(),
    IsNotEmpty({ message: 'label must be a non-empty string' }),
    MaxLength(MAX_LABEL),
    NotContains('\u0000', { message: 'label must not hold NUL characters' }),
  );

const DisplayOrder = (required: boolean) =>
  applyDecorators(
    required ? ApiProperty() : ApiPropertyOptional(),
    required ? IsDefined() : IsOptional(),
    IsInt({ message: 'displayOrder must be a 32-bit integer' }),
    Min(MIN_INT32, { message: 'displayOrder must be a 32-bit integer' }),
    Max(MAX_INT32, { message: 'displayOrder must be a 32-bit integer' }),
  );

/** A pipeline or stage id the app chooses: 1 to 100 letters, digits or `_ . : -`. */
const ChosenId = () =>
  applyDecorators(
    ApiPropertyOptional(),
    IsOptional(),
    Matches(/^[A-Za-z0-9_.:-]{1,100}$/, { message: '$property must be 1 to 100 letters, digits or _ . : -' }),
  );

/** A stage's metadata: an object whose values are strings (numbers and booleans are kept as their text). */
function IsMetadata(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `${String(propertyName)} must be an object of at most ${MAX_METADATA_KEYS} string values`,
      },
      validator: {
        validate: (v: unknown) =>
          typeof v === 'object' &&
          v !== null &&
          !Array.isArray(v) &&
          Object.keys(v).length <= MAX_METADATA_KEYS &&
          Object.values(v).every((x) => typeof x === 'string' || typeof x === 'boolean' || Number.isFinite(x)),
      },
    });
}

const Metadata = (required: boolean) =>
  applyDecorators(
    required
      ? ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
      : ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } }),
    required ? IsDefined() : IsOptional(),
    IsObject(),
    IsMetadata(),
  );

const Archived = () =>
  applyDecorators(ApiPropertyOptional(), IsOptional(), IsBoolean({ message: 'archived must be true or false' }));

/** PipelineStageReplaceInput (PUT of a stage; inside a PUT of a pipeline, a stage keeps its id). */
export class StageReplaceDto {
  @Label(true) label!: string;
  @DisplayOrder(true) displayOrder!: number;
  @Metadata(true) metadata!: Record<string, string | number | boolean>;
}

/** PipelineStageInput: a new stage may name its id. */
export class StageCreateDto extends StageReplaceDto {
  @ChosenId() stageId?: string;
}

const Stages = () =>
  NestedArray(() => StageCreateDto, { max: BOUND_STAGES, message: 'stages is required: an array of stages' });

/** PipelineReplaceInput (PUT): label, order and the stages (those not listed are archived). */
export class PipelineReplaceDto {
  @Label(true) label!: string;
  @DisplayOrder(true) displayOrder!: number;
  @Stages() stages!: StageCreateDto[];
}

/** PipelineInput (POST): a new pipeline may name its id. */
export class PipelineCreateDto extends PipelineReplaceDto {
  @ChosenId() pipelineId?: string;
}

/** PipelinePatchInput. */
export class PipelinePatchDto {
  @Label(false) label?: string;
  @DisplayOrder(false) displayOrder?: number;
  @Archived() archived?: boolean;
}

/** PipelineStagePatchInput. */
export class StagePatchDto {
  @Label(false) label?: string;
  @DisplayOrder(false) displayOrder?: number;
  @Archived() archived?: boolean;
  @Metadata(false) metadata?: Record<string, string | number | boolean>;
}
