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
import { FIELD_TYPES, MAX_FORMULA_LENGTH, PROPERTY_TYPES } from '../domain/property-rules';
import { OptionInputDatedDto, OptionInputDto, PropertyCreateDatedDto, PropertyCreateDto } from './limits.dto';

const MAX_INT32 = 2_147_483_647;
const MAX_TEXT = 3000;
const MAX_OPTIONS = 1000;

/**
 * HubSpot's batch endpoints take at most 100 inputs (its documented batch size for the CRM
 * APIs); a longer batch is refused whole with a 400, nothing recorded.
 */
export const MAX_BATCH_INPUTS = 100;

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

export const DATA_SENSITIVITIES = ['non_sensitive', 'sensitive', 'highly_sensitive'] as const;

/** HubSpot's BatchReadInputPropertyName; `archived` and `dataSensitivity` default to false and non_sensitive. */
export class BatchReadPropertyNameDto {
  @Inputs(() => PropertyNameDto) inputs!: PropertyNameDto[];
  @ApiPropertyOptional() @IsOptional() @IsBoolean() archived?: boolean;
  @ApiPropertyOptional({ enum: DATA_SENSITIVITIES }) @IsOptional() @IsIn(DATA_SENSITIVITIES) dataSensitivity?: string;
}

const PatchOptions = (option: () => typeof OptionInputDto | typeof OptionInputDatedDto) =>
  applyDecorators(
    ApiPropertyOptional({ type: [option()] }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_OPTIONS),
    ValidateNested({ each: true }),
    Type(option),
  );

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
  abstract options?: OptionInputDto[] | OptionInputDatedDto[];
}

/** HubSpot's PropertyUpdate (PATCH): absent fields keep their value. */
export class PropertyUpdateDto extends PropertyUpdateFieldsDto {
  @PatchOptions(() => OptionInputDto) options?: OptionInputDto[];
}

/** PropertyUpdate from 2026-03: each option needs `displayOrder`. */
export class PropertyUpdateDatedDto extends PropertyUpdateFieldsDto {
  @PatchOptions(() => OptionInputDatedDto) options?: OptionInputDatedDto[];
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
