import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
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
  ValidateNested,
} from 'class-validator';
import { DATA_SENSITIVITIES, FIELD_TYPES, MAX_FORMULA_LENGTH, PROPERTY_TYPES } from '../domain/property-rules';
import {
  CurrencyPropertyName,
  MAX_BATCH_INPUTS,
  NumberDisplayHint,
  ShowCurrencySymbol,
  TextDisplayHint,
  MAX_INT32,
  MAX_TEXT,
  OptionInputDatedDto,
  OptionInputDto,
  OptionsOf,
  PropertyCreateDatedDto,
  PropertyCreateDto,
} from './limits.dto';

const Inputs = (item: () => new () => object) =>
  applyDecorators(
    ApiProperty({ type: [item()] }),
    IsDefined(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_BATCH_INPUTS),
    ValidateNested({ each: true }),
    Type(item),
  );

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
