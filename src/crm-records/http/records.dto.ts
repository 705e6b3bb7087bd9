import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { tooManyInputs, tooManyInputsWithHistory } from '../domain/record-errors';
import { NestedArray } from '../../platform/http/nested-array';

/** HubSpot's batch size for the objects API (its documented figure); a batch read with history: 50. */
export const MAX_BATCH_INPUTS = 100;
export const MAX_BATCH_INPUTS_WITH_HISTORY = 50;
/** Property names a read may list (a batch read's `properties`, `propertiesWithHistory`). */
const MAX_NAMES = 1000;
/** Associations one create may carry (HubSpot documents none; a create rarely names more than a few). */
export const MAX_CREATE_ASSOCIATIONS = 100;

export const ASSOCIATION_CATEGORIES = ['HUBSPOT_DEFINED', 'USER_DEFINED', 'INTEGRATOR_DEFINED'] as const;

/** A property value as HubSpot takes it: a string, or a JSON number or boolean (taken as its string); null clears. */
const isPropertyValue = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null;

/**
 * `properties`: an object of property names to values. Whether a value suits its property is the
 * domain's check (it depends on the account's definitions); here only its JSON type, the message
 * naming each value that is an object or an array.
 */
const PropertyValues = () =>
  applyDecorators(
    ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } }),
    IsOptional(),
    IsObject({ message: ({ property }) => `${property} must be an object of property names to values` }),
    ValidateBy({
      name: 'isPropertyValues',
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'object' || value === null || Object.values(value).every(isPropertyValue),
        defaultMessage: (args) =>
          Object.entries((args?.value ?? {}) as Record<string, unknown>)
            .filter(([, v]) => !isPropertyValue(v))
            .map(([name]) => `${args!.property}.${name}`)
            .join(', ') + ' must be a string, a number, a boolean or null',
      },
    }),
  );

/** A record id (HubSpot's are strings of digits; a JSON integer is taken as its string), or a unique value. */
const RecordIdValue = (description: string) =>
  applyDecorators(
    ApiProperty({ description }),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value,
    ),
    IsDefined(),
    IsString(),
    IsNotEmpty(),
    MaxLength(1000),
    ValidateBy({
      name: 'hasNoNul',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || !v.includes('\u0000'),
        defaultMessage: (args) => `${args?.property ?? 'id'} must not hold a NUL character`,
      },
    }),
  );

/** `idProperty`: a property name (`""` is taken as none). */
const IdPropertyName = (required: boolean) =>
  applyDecorators(
    required ? ApiProperty() : ApiPropertyOptional(),
    required ? IsDefined() : IsOptional(),
    IsString(),
    MaxLength(200),
    Matches(/^[A-Za-z0-9_.-]*$/, { message: ({ property }) => `${property} must be a property name` }),
  );

/** A batch read's property names. */
const PropertyNames = () =>
  applyDecorators(
    ApiPropertyOptional({ type: [String] }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_NAMES),
    IsString({ each: true }),
    MaxLength(200, { each: true }),
  );

/** A batch's `inputs`: at most MAX_BATCH_INPUTS (refused before validation with HubSpot's message, `refuseBody`). */
const Inputs = (input: () => abstract new () => unknown) =>
  NestedArray(input, { max: MAX_BATCH_INPUTS, api: { maxItems: MAX_BATCH_INPUTS } });

/** The length of a raw body's `inputs`, when it is an array. */
const inputCount = (body: Record<string, unknown>): number => (Array.isArray(body.inputs) ? body.inputs.length : 0);

/** HubSpot's answer to a batch of more than 100 inputs, before any input is looked at. */
function refuseOversizedBatch(body: Record<string, unknown>): void {
  const count = inputCount(body);
  if (count > MAX_BATCH_INPUTS) throw tooManyInputs(count, MAX_BATCH_INPUTS);
}

export class AssociationTargetDto {
  @RecordIdValue('The id of the record to associate with') id!: string;
}

export class RecordAssociationSpecDto {
  @ApiProperty({ enum: ASSOCIATION_CATEGORIES })
  @IsDefined()
  @IsIn(ASSOCIATION_CATEGORIES)
  associationCategory!: (typeof ASSOCIATION_CATEGORIES)[number];

  @ApiProperty() @IsDefined() @IsInt() @Min(1) @Max(2_147_483_647) associationTypeId!: number;
}

/** HubSpot's PublicAssociationsForObject: a record to associate the new one with, and the types of the association. */
export class RecordAssociationDto {
  @ApiProperty({ type: AssociationTargetDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => AssociationTargetDto)
  to!: AssociationTargetDto;

  @NestedArray(() => RecordAssociationSpecDto, { max: 10 })
  types!: RecordAssociationSpecDto[];
}

/** POST /{objectType} (and each input of batch/create): SimplePublicObjectInputForCreate. */
export class RecordCreateDto {
  @PropertyValues() properties?: Record<string, unknown>;

  @NestedArray(() => RecordAssociationDto, { max: MAX_CREATE_ASSOCIATIONS, optional: true })
  associations?: RecordAssociationDto[];
}

/** PATCH /{objectType}/{objectId}: SimplePublicObjectInput. */
export class RecordUpdateDto {
  @PropertyValues() properties?: Record<string, unknown>;
}

export class BatchCreateDto {
  static refuseBody = refuseOversizedBatch;
  @Inputs(() => RecordCreateDto) inputs!: RecordCreateDto[];
}

export class BatchUpdateInputDto {
  @RecordIdValue('The record id, or the value of idProperty') id!: string;
  @IdPropertyName(false) idProperty?: string;
  @PropertyValues() properties?: Record<string, unknown>;
}

export class BatchUpdateDto {
  static refuseBody = refuseOversizedBatch;
  @Inputs(() => BatchUpdateInputDto) inputs!: BatchUpdateInputDto[];
}

export class BatchUpsertInputDto {
  @RecordIdValue('The value of idProperty') id!: string;
  @IdPropertyName(true) idProperty!: string;
  @PropertyValues() properties?: Record<string, unknown>;
}

export class BatchUpsertDto {
  static refuseBody = refuseOversizedBatch;
  @Inputs(() => BatchUpsertInputDto) inputs!: BatchUpsertInputDto[];
}

export class RecordIdInputDto {
  @RecordIdValue('The record id (or the value of idProperty)') id!: string;
}

export class BatchArchiveDto {
  static refuseBody = refuseOversizedBatch;
  @Inputs(() => RecordIdInputDto) inputs!: RecordIdInputDto[];
}

/** POST .../batch/read: BatchReadInputSimplePublicObjectId. At most 50 inputs with propertiesWithHistory. */
export class BatchReadDto {
  static refuseBody(body: Record<string, unknown>): void {
    refuseOversizedBatch(body);
    const count = inputCount(body);
    const history = body.propertiesWithHistory;
    if (Array.isArray(history) && history.length > 0 && count > MAX_BATCH_INPUTS_WITH_HISTORY)
      throw tooManyInputsWithHistory(count, MAX_BATCH_INPUTS_WITH_HISTORY);
  }

  @Inputs(() => RecordIdInputDto) inputs!: RecordIdInputDto[];
  @PropertyNames() properties?: string[];
  @PropertyNames() propertiesWithHistory?: string[];
  @IdPropertyName(false) idProperty?: string;
}

/** POST .../merge: PublicMergeInput. */
export class MergeDto {
  @RecordIdValue('The record that stays') primaryObjectId!: string;
  @RecordIdValue('The record merged into it') objectIdToMerge!: string;
}

/** POST .../gdpr-delete: PublicGdprDeleteInput. */
export class GdprDeleteDto {
  @RecordIdValue('The record id, or the value of idProperty') objectId!: string;
  @IdPropertyName(false) idProperty?: string;
}

/** A DTO's property values as the commands take them: strings (numbers and booleans as sent; null clears). */
export function propertyStrings(values: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values ?? {}))
    out[name] = value === null ? '' : typeof value === 'string' ? value : String(value as number | boolean);
  return out;
}

/** A batch read's names: deduplicated, empty ones dropped; undefined when none is left. */
export function namesOf(list: readonly string[] | undefined): string[] | undefined {
  if (!list) return undefined;
  const names = [...new Set(list.map((n) => n.trim()).filter((n) => n !== ''))];
  return names.length > 0 ? names : undefined;
}

/** `idProperty` as the commands take it: `""` is none. */
export const idPropertyOf = (raw: string | undefined): string | undefined => (raw ? raw : undefined);

/**
 * POST /admin/v1/accounts/{hubId}/crm/objects/{objectType}/{objectId}/restore (the stand-in for
 * HubSpot's UI restore): both optional. `appId` names the install whose clock decides the 90 days;
 * `userId` the user who restores (HubSpot's restore is a user's: webhooks say `CRM_UI`).
 */
export class RestoreRecordDto {
  @ApiPropertyOptional({ description: 'The install (with hubId) whose clock decides the 90-day window' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  appId?: number;

  @ApiPropertyOptional({ description: 'The HubSpot user who restores the record' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  userId?: number;
}
