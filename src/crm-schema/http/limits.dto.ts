import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  DATA_SENSITIVITIES,
  FIELD_TYPES,
  MAX_FORMULA_LENGTH,
  NUMBER_DISPLAY_HINTS,
  PROPERTY_TYPES,
  TEXT_DISPLAY_HINTS,
} from '../domain/property-rules';

export const MAX_INT32 = 2_147_483_647;
/** Bounds that keep one request (and the event it becomes) reasonably small. */
const MAX_OPTIONS = 1000;
export const MAX_TEXT = 3000;

/**
 * HubSpot's batch endpoints (properties and schemas) take at most 100 inputs (its documented batch
 * size for the CRM APIs); a longer batch is refused whole with a 400, nothing recorded.
 */
export const MAX_BATCH_INPUTS = 100;

abstract class OptionInputFieldsDto {
  @ApiProperty() @IsDefined() @IsString() @MaxLength(MAX_TEXT) label!: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(MAX_TEXT) value!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_TEXT) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hidden?: boolean;
  abstract displayOrder?: number;
}

/** v3's OptionInput (also a schema property's option at every version). */
export class OptionInputDto extends OptionInputFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
}

/** properties.json's OptionInput from 2026-03: `displayOrder` is required. */
export class OptionInputDatedDto extends OptionInputFieldsDto {
  @ApiProperty() @IsDefined() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder!: number;
}

/** The display hints of PropertyCreate and PropertyUpdate (v3, 2026-03): enums checked, stored, returned. */
export const NumberDisplayHint = () =>
  applyDecorators(ApiPropertyOptional({ enum: NUMBER_DISPLAY_HINTS }), IsOptional(), IsIn(NUMBER_DISPLAY_HINTS));
export const TextDisplayHint = () =>
  applyDecorators(ApiPropertyOptional({ enum: TEXT_DISPLAY_HINTS }), IsOptional(), IsIn(TEXT_DISPLAY_HINTS));
export const ShowCurrencySymbol = () => applyDecorators(ApiPropertyOptional(), IsOptional(), IsBoolean());
export const CurrencyPropertyName = () =>
  applyDecorators(ApiPropertyOptional(), IsOptional(), IsString(), IsNotEmpty(), MaxLength(100));

/** Fields a property has both in PropertyCreate and in a schema's ObjectTypePropertyCreate (options apart). */
abstract class PropertyFieldsDto {
  @ApiProperty({ example: 'lifetime_value' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;

  @ApiProperty({ example: 'Lifetime value' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  label!: string;

  @ApiProperty({ enum: PROPERTY_TYPES }) @IsDefined() @IsIn(PROPERTY_TYPES) type!: string;
  @ApiProperty({ enum: FIELD_TYPES }) @IsDefined() @IsIn(FIELD_TYPES) fieldType!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_TEXT) description?: string;
  abstract options?: OptionInputDto[] | OptionInputDatedDto[];

  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hasUniqueValue?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hidden?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() formField?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) referencedObjectType?: string;
  // Display hints: in PropertyCreate and in a schema's ObjectTypePropertyCreate alike.
  @NumberDisplayHint() numberDisplayHint?: string;
  @TextDisplayHint() textDisplayHint?: string;
  @ShowCurrencySymbol() showCurrencySymbol?: boolean;
}

/** An optional options array (create, schema property, PATCH): each option validated as `option`. */
export const OptionsOf = (option: () => typeof OptionInputDto | typeof OptionInputDatedDto) =>
  applyDecorators(
    ApiPropertyOptional({ type: [option()] }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_OPTIONS),
    ValidateNested({ each: true }),
    Type(option),
  );

abstract class PropertyCreateFieldsDto extends PropertyFieldsDto {
  @ApiProperty({ example: 'contactinformation' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  groupName!: string;

  @ApiPropertyOptional() @IsOptional() @IsBoolean() externalOptions?: boolean;

  @ApiPropertyOptional({ description: 'Required when fieldType is calculation_equation', example: 'amount * 2' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_FORMULA_LENGTH)
  calculationFormula?: string;

  @ApiPropertyOptional({ enum: DATA_SENSITIVITIES })
  @IsOptional()
  @IsIn(DATA_SENSITIVITIES)
  dataSensitivity?: string;

  @CurrencyPropertyName() currencyPropertyName?: string;
}

/** HubSpot's PropertyCreate (POST /crm/v3/properties/{objectType}). */
export class PropertyCreateDto extends PropertyCreateFieldsDto {
  @OptionsOf(() => OptionInputDto) options?: OptionInputDto[];
}

/** PropertyCreate from 2026-03 (POST /crm/properties/2026-03/{objectType}): options need `displayOrder`. */
export class PropertyCreateDatedDto extends PropertyCreateFieldsDto {
  @OptionsOf(() => OptionInputDatedDto) options?: OptionInputDatedDto[];
}

/** A property of a new schema (ObjectTypePropertyCreate). */
export class SchemaPropertyDto extends PropertyFieldsDto {
  @OptionsOf(() => OptionInputDto) options?: OptionInputDto[];

  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100) groupName?: string;
}

export class SchemaLabelsDto {
  @ApiProperty({ example: 'Car' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) singular!: string;
  @ApiProperty({ example: 'Cars' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) plural!: string;
}

const DisplayPropertyNames = (required: boolean) =>
  applyDecorators(
    required ? ApiProperty({ type: [String] }) : ApiPropertyOptional({ type: [String] }),
    required ? IsDefined() : IsOptional(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
  );
/** Only false is supported (the controller refuses true); required or not depending on the version. */
const Flag = (required: boolean, description: string) =>
  applyDecorators(
    required ? ApiProperty({ description }) : ApiPropertyOptional({ description }),
    required ? IsDefined() : IsOptional(),
    IsBoolean(),
  );
const SENSITIVE = 'Sensitive properties are not supported: only false';
const SAME_OBJECT = 'Associations of an object type with itself are not supported: only false';

/** ObjectSchemaEgg's fields whose presence every version requires alike. */
abstract class SchemaCreateFieldsDto {
  @ApiProperty({ example: 'cars' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(100) name!: string;

  @ApiProperty({ type: SchemaLabelsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SchemaLabelsDto)
  labels!: SchemaLabelsDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_TEXT) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) primaryDisplayProperty?: string;

  abstract secondaryDisplayProperties?: string[];
  abstract searchableProperties?: string[];
  abstract allowsSensitiveProperties?: boolean;
  abstract shouldCreateSameObjectAssociation?: boolean;

  @ApiProperty({ type: [String] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_OPTIONS)
  @IsString({ each: true })
  requiredProperties!: string[];

  @ApiProperty({ type: [SchemaPropertyDto] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_OPTIONS)
  @ValidateNested({ each: true })
  @Type(() => SchemaPropertyDto)
  properties!: SchemaPropertyDto[];

  @ApiProperty({ type: [String], example: ['CONTACT'] })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  associatedObjects!: string[];
}

/** HubSpot's ObjectSchemaEgg at v3 (POST /crm/v3/schemas). */
export class SchemaCreateDto extends SchemaCreateFieldsDto {
  @DisplayPropertyNames(false) secondaryDisplayProperties?: string[];
  @DisplayPropertyNames(false) searchableProperties?: string[];
  @Flag(false, SENSITIVE) allowsSensitiveProperties?: boolean;
  @Flag(false, SAME_OBJECT) shouldCreateSameObjectAssociation?: boolean;
}

/** ObjectSchemaEgg at 2026-03: the display and searchable lists and both flags are required. */
export class SchemaCreate2026_03Dto extends SchemaCreateFieldsDto {
  @DisplayPropertyNames(true) secondaryDisplayProperties!: string[];
  @DisplayPropertyNames(true) searchableProperties!: string[];
  @Flag(true, SENSITIVE) allowsSensitiveProperties!: boolean;
  @Flag(true, SAME_OBJECT) shouldCreateSameObjectAssociation!: boolean;
}

/** ObjectSchemaEgg at 2026-09: as 2026-03, but `shouldCreateSameObjectAssociation` is optional again. */
export class SchemaCreate2026_09Dto extends SchemaCreateFieldsDto {
  @DisplayPropertyNames(true) secondaryDisplayProperties!: string[];
  @DisplayPropertyNames(true) searchableProperties!: string[];
  @Flag(true, SENSITIVE) allowsSensitiveProperties!: boolean;
  @Flag(false, SAME_OBJECT) shouldCreateSameObjectAssociation?: boolean;
}

/** Listed bottom-up, as the stacked decorators it replaces ran: validation messages keep their order. */
const Override = () =>
  applyDecorators(Max(1_000_000), Min(0), IsInt(), IsOptional(), ApiPropertyOptional({ nullable: true, minimum: 0 }));

/** PUT /admin/v1/accounts/{hubId}/limits: a number sets an override, null clears it, absent keeps it. */
export class LimitOverridesDto {
  @Override() calculatedProperties?: number | null;
  @Override() customObjectTypes?: number | null;
  @Override() customProperties?: number | null;
  @Override() associationLabels?: number | null;
}
