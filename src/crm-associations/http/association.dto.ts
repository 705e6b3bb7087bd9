import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { NestedArray } from '../../platform/http/nested-array';

/**
 * The associations v4 bodies (associations.json, associationsSchema.json at v4, 2026-03 and 2026-09)
 * as class-validator DTOs. Batches take at most 1,000 inputs (HubSpot's v4 batch size); the
 * definition configurations 100.
 */
export const MAX_BATCH_INPUTS = 1_000;
export const MAX_CONFIGURATION_INPUTS = 100;
export const MAX_TYPES_PER_PAIR = 100;
const MAX_INT32 = 2_147_483_647;
export const CATEGORIES = ['HUBSPOT_DEFINED', 'USER_DEFINED', 'INTEGRATOR_DEFINED', 'WORK'] as const;

/** HubSpot's record ids are numeric strings; JSON numbers are taken as their digits. */
const NumberAsDigits = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'number' ? String(value) : value));
const RecordIdField = () =>
  applyDecorators(NumberAsDigits(), IsDefined(), Matches(/^\d{1,15}$/, { message: 'id must be a numeric record id' }));

export class AssociationSpecDto {
  @ApiProperty({ enum: CATEGORIES })
  @IsDefined()
  @IsIn(CATEGORIES, { message: `associationCategory must be one of ${CATEGORIES.join(', ')}` })
  associationCategory!: string;

  @ApiProperty({ example: 279 })
  @IsDefined()
  @IsInt({ message: 'associationTypeId must be an integer' })
  @Min(0)
  @Max(MAX_INT32)
  associationTypeId!: number;
}

/** The JSON array body of PUT …/associations/{toObjectType}/{toObjectId}, held as the field `body`. */
export class AssociationSpecListDto {
  @NestedArray(() => AssociationSpecDto, {
    max: MAX_TYPES_PER_PAIR,
    min: 1,
    message: 'the body must be an array of association types',
    minMessage: 'at least one association type is required',
  })
  body!: AssociationSpecDto[];
}

export class RecordIdDto {
  @ApiProperty({ example: '101' }) @RecordIdField() id!: string;
}

/** `{ "id": "101" }`, one end of an association. */
const RecordRef = () =>
  applyDecorators(
    ApiProperty({ type: RecordIdDto }),
    IsDefined(),
    ValidateNested(),
    Type(() => RecordIdDto),
  );

/** PublicAssociationMultiPost: batch create and batch labels archive. */
export class AssociationMultiPostDto {
  @RecordRef() from!: RecordIdDto;
  @RecordRef() to!: RecordIdDto;

  @NestedArray(() => AssociationSpecDto, { max: MAX_TYPES_PER_PAIR })
  types!: AssociationSpecDto[];
}

/** PublicDefaultAssociationMultiPost. */
export class DefaultAssociationPostDto {
  @RecordRef() from!: RecordIdDto;
  @RecordRef() to!: RecordIdDto;
}

/** PublicAssociationMultiArchive: one record and the records to let go of. */
export class AssociationMultiArchiveDto {
  @RecordRef() from!: RecordIdDto;

  @NestedArray(() => RecordIdDto, { max: MAX_BATCH_INPUTS })
  to!: RecordIdDto[];
}

/** PublicFetchAssociationsBatchRequest: the record id (any text: an unknown one is reported, not refused). */
export class AssociationFetchDto {
  @ApiProperty({ example: '101' })
  @NumberAsDigits()
  @IsDefined()
  @Matches(/^.{1,100}$/s, { message: 'id must be a record id' })
  id!: string;

  @ApiPropertyOptional({ description: 'the paging cursor of a previous page' })
  @IsOptional()
  @NumberAsDigits()
  @Matches(/^\d{1,15}$/, { message: 'after must be the paging cursor of a previous page' })
  after?: string;
}

/** `inputs` of a batch: required, at most `max`, each validated as `item`. */
const batchOf = (item: () => new () => unknown, max = MAX_BATCH_INPUTS) => NestedArray(item, { max });

export class BatchAssociationMultiPostDto {
  @batchOf(() => AssociationMultiPostDto) inputs!: AssociationMultiPostDto[];
}

export class BatchDefaultAssociationPostDto {
  @batchOf(() => DefaultAssociationPostDto) inputs!: DefaultAssociationPostDto[];
}

export class BatchAssociationMultiArchiveDto {
  @batchOf(() => AssociationMultiArchiveDto) inputs!: AssociationMultiArchiveDto[];
}

export class BatchAssociationFetchDto {
  @batchOf(() => AssociationFetchDto) inputs!: AssociationFetchDto[];
}

/** PublicAssociationDefinitionConfigurationCreateRequest / …UpdateRequest (with `maxToObjectIds`). */
export class AssociationLimitInputDto {
  @ApiProperty({ enum: CATEGORIES })
  @IsDefined()
  @IsIn(CATEGORIES, { message: `category must be one of ${CATEGORIES.join(', ')}` })
  category!: string;

  @ApiProperty() @IsDefined() @IsInt({ message: 'typeId must be an integer' }) @Min(0) @Max(MAX_INT32) typeId!: number;

  // Its range (1 to the per-record ceiling) is the decider's rule, with its own code.
  @ApiProperty() @IsDefined() @IsInt({ message: 'maxToObjectIds must be an integer' }) maxToObjectIds!: number;
}

/** PublicAssociationSpec of the configurations' purge. */
export class AssociationLimitRefDto {
  @ApiProperty({ enum: CATEGORIES })
  @IsDefined()
  @IsIn(CATEGORIES, { message: `category must be one of ${CATEGORIES.join(', ')}` })
  category!: string;

  @ApiProperty() @IsDefined() @IsInt({ message: 'typeId must be an integer' }) @Min(0) @Max(MAX_INT32) typeId!: number;
}

export class BatchAssociationLimitInputDto {
  @batchOf(() => AssociationLimitInputDto, MAX_CONFIGURATION_INPUTS) inputs!: AssociationLimitInputDto[];
}

export class BatchAssociationLimitRefDto {
  @batchOf(() => AssociationLimitRefDto, MAX_CONFIGURATION_INPUTS) inputs!: AssociationLimitRefDto[];
}

const LabelText = (required: boolean) =>
  applyDecorators(
    required ? ApiProperty({ maxLength: 100 }) : ApiPropertyOptional({ maxLength: 100 }),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    required ? IsDefined() : IsOptional(),
    IsString(),
    IsNotEmpty(),
    MaxLength(100),
  );

/** PublicAssociationDefinitionCreateRequest: `inverseLabel` makes a paired label. */
export class AssociationLabelCreateDto {
  @LabelText(true) label!: string;
  @LabelText(true) name!: string;
  @LabelText(false) inverseLabel?: string;
}

/** PublicAssociationDefinitionUpdateRequest. */
export class AssociationLabelUpdateDto {
  @ApiProperty()
  @IsDefined()
  @IsInt({ message: 'associationTypeId must be an integer' })
  @Min(0)
  @Max(MAX_INT32)
  associationTypeId!: number;

  @LabelText(true) label!: string;
  @LabelText(false) inverseLabel?: string;
}
