import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import {
  DATA_SENSITIVITIES,
  FIELD_TYPES,
  MAX_FORMULA_LENGTH,
  NUMBER_DISPLAY_HINTS,
  PROPERTY_TYPES,
  TEXT_DISPLAY_HINTS,
} from '../domain/property-rules';
import { MAX_BATCH_INPUTS, MAX_INT32, MAX_OPTIONS, MAX_TEXT } from './input-bounds';
import { NestedArray } from '../../platform/http/nested-array';

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
export abstract class PropertyFieldsDto {
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
  NestedArray(option, { max: MAX_OPTIONS, optional: true });

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

const Inputs = (item: () => new () => object) => NestedArray(item, { max: MAX_BATCH_INPUTS, min: 1 });

/** HubSpot's BatchInputPropertyCreate. */
export class BatchPropertyCreateDto {
  @Inputs(() => PropertyCreateDto) inputs!: PropertyCreateDto[];
}

/** BatchInputPropertyCreate from 2026-03: each option needs `displayOrder`. */
export class BatchPropertyCreateDatedDto {
  @Inputs(() => PropertyCreateDatedDto) inputs!: PropertyCreateDatedDto[];
}

/** HubSpot's PropertyName. */
export class PropertyNameDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) name!: string;
}

/** HubSpot's BatchInputPropertyName (batch archive). */
export class BatchPropertyNameDto {
  @Inputs(() => PropertyNameDto) inputs!: PropertyNameDto[];
}

/** HubSpot's BatchReadInputPropertyName; `archived` and `dataSensitivity` default to false and non_sensitive. */
export class BatchReadPropertyNameDto {
  @Inputs(() => PropertyNameDto) inputs!: PropertyNameDto[];
  @ApiPropertyOptional() @IsOptional() @IsBoolean() archived?: boolean;
  @ApiPropertyOptional({ enum: DATA_SENSITIVITIES }) @IsOptional() @IsIn(DATA_SENSITIVITIES) dataSensitivity?: string;
}

abstract class PropertyUpdateFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255) label?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_TEXT) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100) groupName?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hidden?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() formField?: boolean;
  @ApiPropertyOptional({ enum: PROPERTY_TYPES }) @IsOptional() @IsIn(PROPERTY_TYPES) type?: string;
  @ApiPropertyOptional({ enum: FIELD_TYPES }) @IsOptional() @IsIn(FIELD_TYPES) fieldType?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_FORMULA_LENGTH) calculationFormula?: string;
  @NumberDisplayHint() numberDisplayHint?: string;
  @TextDisplayHint() textDisplayHint?: string;
  @ShowCurrencySymbol() showCurrencySymbol?: boolean;
  @CurrencyPropertyName() currencyPropertyName?: string;
  abstract options?: OptionInputDto[] | OptionInputDatedDto[];
}

/** HubSpot's PropertyUpdate (PATCH): absent fields keep their value. */
export class PropertyUpdateDto extends PropertyUpdateFieldsDto {
  @OptionsOf(() => OptionInputDto) options?: OptionInputDto[];
}

/** PropertyUpdate from 2026-03: each option needs `displayOrder`. */
export class PropertyUpdateDatedDto extends PropertyUpdateFieldsDto {
  @OptionsOf(() => OptionInputDatedDto) options?: OptionInputDatedDto[];
}

/** HubSpot's PropertyGroupCreate. */
export class PropertyGroupCreateDto {
  @ApiProperty({ example: 'myappinformation' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(100) name!: string;
  @ApiProperty({ example: 'My app' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) label!: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
}

/** HubSpot's PropertyGroupUpdate. */
export class PropertyGroupUpdateDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(255) label?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
}
