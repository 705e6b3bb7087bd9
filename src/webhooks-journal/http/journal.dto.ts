import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { CONDITION_OPERATORS, JOURNAL_ACTIONS, SUBSCRIPTION_TYPES } from '../domain/journal-events';
import { NestedArray } from '../../platform/http/nested-array';

const MAX_INT64 = Number.MAX_SAFE_INTEGER;
const OBJECT_TYPE_ID = /^[0-9]+-[0-9]+$/;

/**
 * HubSpot's SubscriptionUpsertRequest: one of five shapes told apart by `subscriptionType`. One
 * class holds every field; what each type requires is checked by the decider (checkSubscription).
 */
export class SubscriptionUpsertDto {
  @ApiProperty({ enum: SUBSCRIPTION_TYPES })
  @IsIn(SUBSCRIPTION_TYPES as unknown as string[])
  subscriptionType!: (typeof SUBSCRIPTION_TYPES)[number];

  @ApiPropertyOptional({ format: 'int64' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INT64)
  portalId?: number;

  @ApiPropertyOptional({ description: '`0-1`, `2-123`, ... (OBJECT, ASSOCIATION, GDPR_PRIVACY_DELETION)' })
  @IsOptional()
  @IsString()
  @Matches(OBJECT_TYPE_ID, { message: 'objectTypeId must be an object type id such as 0-1' })
  objectTypeId?: string;

  @ApiPropertyOptional({ description: 'APP_LIFECYCLE_EVENT' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  eventTypeId?: string;

  @ApiPropertyOptional({ enum: JOURNAL_ACTIONS, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(JOURNAL_ACTIONS.length)
  @IsIn(JOURNAL_ACTIONS as unknown as string[], { each: true })
  actions?: (typeof JOURNAL_ACTIONS)[number][];

  @ApiPropertyOptional({ type: [Number] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(MAX_INT64, { each: true })
  objectIds?: number[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  properties?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(OBJECT_TYPE_ID, { each: true, message: 'associatedObjectTypeIds must be object type ids such as 0-2' })
  associatedObjectTypeIds?: string[];

  @ApiPropertyOptional({ type: [Number] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsInt({ each: true })
  listIds?: number[];
}

export class ConditionDto {
  @ApiProperty({ enum: ['CRM_OBJECT_PROPERTY'] })
  @IsIn(['CRM_OBJECT_PROPERTY'])
  filterType!: 'CRM_OBJECT_PROPERTY';

  @ApiProperty({ enum: CONDITION_OPERATORS })
  @IsIn(CONDITION_OPERATORS as unknown as string[])
  operator!: (typeof CONDITION_OPERATORS)[number];

  @ApiProperty()
  @IsString()
  @MaxLength(100)
  @Matches(/\S/, { message: 'property must not be blank' })
  property!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  value?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(1000, { each: true })
  values?: string[];
}

export class JournalFilterDto {
  @NestedArray(() => ConditionDto, { max: 25, min: 1 })
  conditions!: ConditionDto[];
}

/** HubSpot's FilterCreateRequest. */
export class FilterCreateDto {
  @ApiProperty({ format: 'int64' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT64)
  subscriptionId!: number;

  @ApiProperty({ type: JournalFilterDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => JournalFilterDto)
  filter!: JournalFilterDto;
}

export class CrmObjectSnapshotDto {
  @ApiProperty({ format: 'int64' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT64)
  objectId!: number;

  @ApiProperty()
  @IsString()
  @Matches(OBJECT_TYPE_ID, { message: 'objectTypeId must be an object type id such as 0-1' })
  objectTypeId!: string;

  @ApiProperty({ format: 'int64' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT64)
  portalId!: number;

  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  properties!: string[];
}

/** HubSpot's CrmObjectSnapshotBatchRequest. */
export class CrmObjectSnapshotBatchDto {
  @NestedArray(() => CrmObjectSnapshotDto, { max: 100, min: 1 })
  snapshotRequests!: CrmObjectSnapshotDto[];
}

/** HubSpot's BatchInputString: the offsets to read. */
export class BatchOffsetsDto {
  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  inputs!: string[];
}
