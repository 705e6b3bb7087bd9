import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  registerDecorator,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { toCardId } from '../domain/card-ids';
import { CARD_OBJECT_TYPES, type CardObjectType } from '../domain/card-views';
import type { CardType, DisplayDataType, DisplayOptionType } from '../domain/card-events';
import { NestedArray } from '../../platform/http/nested-array';

const DATA_TYPES: DisplayDataType[] = [
  'BOOLEAN',
  'CURRENCY',
  'DATE',
  'DATETIME',
  'EMAIL',
  'LINK',
  'NUMERIC',
  'STATUS',
  'STRING',
];
const OPTION_TYPES: DisplayOptionType[] = ['DANGER', 'DEFAULT', 'INFO', 'SUCCESS', 'WARNING'];
const CARD_TYPES: CardType[] = ['EXTERNAL', 'SERVERLESS'];
const URL_OPTIONS = { protocols: ['https', 'http'], require_protocol: true, require_tld: false };

/** HubSpot sends and accepts int64 ids as JSON integers; a string of digits is accepted too. */
function IsInt64Id(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isInt64Id',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a positive int64 integer`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && toCardId(value) === value },
    });
}

/** Canonical decimal string for a valid id; anything else is left as sent, for the validator to refuse. */
const ToCardId = () => Transform(({ value }: { value: unknown }) => toCardId(value) ?? value);

export class CardObjectTypeDto {
  @ApiProperty({ enum: CARD_OBJECT_TYPES })
  @IsDefined()
  @IsIn(CARD_OBJECT_TYPES, { message: `name must be one of: ${CARD_OBJECT_TYPES.join(', ')}` })
  name!: CardObjectType;

  @ApiProperty({ type: [String] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  propertiesToSend!: string[];
}

/** CardFetchBody without `cardType`, which is optional at v3 and required from 2026-03. */
abstract class CardFetchBodyFieldsDto {
  @ApiProperty({ example: 'https://www.example.com/hubspot/target' })
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS, { message: 'targetUrl must be an http(s) URL' })
  targetUrl!: string;

  @NestedArray(() => CardObjectTypeDto, {
    max: CARD_OBJECT_TYPES.length,
    min: 1,
    also: [
      ArrayUnique((o: { name?: unknown }) => o?.name, { message: 'objectTypes must not name an object type twice' }),
    ],
  })
  objectTypes!: CardObjectTypeDto[];

  @ApiPropertyOptional({ deprecated: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  serverlessFunction?: string;
}

/** v3's CardFetchBody. */
export class CardFetchBodyDto extends CardFetchBodyFieldsDto {
  @ApiPropertyOptional({ enum: CARD_TYPES, deprecated: true })
  @IsOptional()
  @IsIn(CARD_TYPES)
  cardType?: CardType;
}

/** 2026-03 and 2026-09's CardFetchBody: `cardType` is required. */
export class CardFetchBodyDatedDto extends CardFetchBodyFieldsDto {
  @ApiProperty({ enum: CARD_TYPES, deprecated: true })
  @IsDefined()
  @IsIn(CARD_TYPES)
  cardType!: CardType;
}

export class CardFetchBodyPatchDto {
  @ApiPropertyOptional({ example: 'https://www.example.com/hubspot/target' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS, { message: 'targetUrl must be an http(s) URL' })
  targetUrl?: string;

  @NestedArray(() => CardObjectTypeDto, {
    max: CARD_OBJECT_TYPES.length,
    min: 1,
    also: [
      ArrayUnique((o: { name?: unknown }) => o?.name, { message: 'objectTypes must not name an object type twice' }),
    ],
  })
  objectTypes!: CardObjectTypeDto[];

  @ApiPropertyOptional({ enum: CARD_TYPES, deprecated: true })
  @IsOptional()
  @IsIn(CARD_TYPES)
  cardType?: CardType;

  @ApiPropertyOptional({ deprecated: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  serverlessFunction?: string;
}

export class DisplayOptionDto {
  @ApiProperty()
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  name!: string;

  @ApiProperty()
  @IsDefined()
  @IsString()
  @MaxLength(500)
  label!: string;

  @ApiProperty({ enum: OPTION_TYPES })
  @IsDefined()
  @IsIn(OPTION_TYPES)
  type!: DisplayOptionType;
}

export class CardDisplayPropertyDto {
  @ApiProperty({ example: 'pet_name' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  name!: string;

  @ApiProperty({ example: 'Pets Name' })
  @IsDefined()
  @IsString()
  @MaxLength(500)
  label!: string;

  @ApiProperty({ enum: DATA_TYPES })
  @IsDefined()
  @IsIn(DATA_TYPES)
  dataType!: DisplayDataType;

  /** Required by the spec's schema, yet its own example leaves it out: accepted missing, answered as []. */
  @NestedArray(() => DisplayOptionDto, { max: 100, optional: true })
  options?: DisplayOptionDto[];
}

export class CardDisplayBodyDto {
  @NestedArray(() => CardDisplayPropertyDto, {
    max: 100,
    also: [ArrayUnique((p: { name?: unknown }) => p?.name, { message: 'properties must have unique names' })],
  })
  properties!: CardDisplayPropertyDto[];
}

export class CardActionsDto {
  @ApiProperty({ type: [String], example: ['https://www.example.com/hubspot'] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @IsUrl(URL_OPTIONS, { each: true, message: 'each of baseUrls must be an http(s) URL' })
  baseUrls!: string[];
}

abstract class CardCreateRequestFieldsDto {
  @ApiProperty({ example: 'PetSpot' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  title!: string;

  abstract fetch: CardFetchBodyDto | CardFetchBodyDatedDto;

  @ApiProperty({ type: CardDisplayBodyDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CardDisplayBodyDto)
  display!: CardDisplayBodyDto;

  @ApiProperty({ type: CardActionsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CardActionsDto)
  actions!: CardActionsDto;
}

/** v3's CardCreateRequest. */
export class CardCreateRequestDto extends CardCreateRequestFieldsDto {
  @ApiProperty({ type: CardFetchBodyDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CardFetchBodyDto)
  fetch!: CardFetchBodyDto;
}

/** 2026-03 and 2026-09's CardCreateRequest (`fetch.cardType` required). */
export class CardCreateRequestDatedDto extends CardCreateRequestFieldsDto {
  @ApiProperty({ type: CardFetchBodyDatedDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => CardFetchBodyDatedDto)
  fetch!: CardFetchBodyDatedDto;
}

export class CardPatchRequestDto {
  @ApiPropertyOptional({ example: 'PetSpot' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  title?: string;

  @ApiPropertyOptional({ type: CardFetchBodyPatchDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CardFetchBodyPatchDto)
  fetch?: CardFetchBodyPatchDto;

  @ApiPropertyOptional({ type: CardDisplayBodyDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CardDisplayBodyDto)
  display?: CardDisplayBodyDto;

  @ApiPropertyOptional({ type: CardActionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CardActionsDto)
  actions?: CardActionsDto;
}

abstract class CardMigrateViewsIdsDto {
  abstract allowDuplicateAppCardIds?: boolean;

  @ApiProperty({ type: 'integer', format: 'int64' })
  @IsDefined()
  @ToCardId()
  @IsInt64Id()
  appCardId!: string;

  @ApiPropertyOptional({ type: 'integer', format: 'int64' })
  @IsOptional()
  @ToCardId()
  @IsInt64Id()
  helpdeskAppCardId?: string;

  @ApiProperty({ type: 'integer', format: 'int64' })
  @IsDefined()
  @ToCardId()
  @IsInt64Id()
  legacyCrmCardId!: string;
}

/** v3 and 2026-03's CardMigrateViewsRequest. */
export class CardMigrateViewsRequestDto extends CardMigrateViewsIdsDto {
  @ApiProperty({ description: 'Allow more than one legacy card migration to point to the same app card.' })
  @IsDefined()
  @IsBoolean()
  allowDuplicateAppCardIds!: boolean;
}

/**
 * 2026-09's CardMigrateViewsRequest no longer names `allowDuplicateAppCardIds`; it is still
 * accepted (HubSpot's documented default, false, when absent), so a client can consolidate on purpose.
 */
export class CardMigrateViews2026_09RequestDto extends CardMigrateViewsIdsDto {
  @ApiPropertyOptional({ description: 'Not in the 2026-09 spec; false when absent.' })
  @IsOptional()
  @IsBoolean()
  allowDuplicateAppCardIds?: boolean;
}

export class CreateAppCardDto {
  @ApiProperty({ example: 'PetSpot (app card)' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  title!: string;

  @ApiProperty({ enum: CARD_OBJECT_TYPES, isArray: true })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(CARD_OBJECT_TYPES.length)
  @ArrayUnique()
  @IsIn(CARD_OBJECT_TYPES, {
    each: true,
    message: `each of objectTypes must be one of: ${CARD_OBJECT_TYPES.join(', ')}`,
  })
  objectTypes!: CardObjectType[];
}
