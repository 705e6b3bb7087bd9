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
import { FIELD_TYPES, MAX_FORMULA_LENGTH, PROPERTY_TYPES } from '../domain/property-rules';

const MAX_INT32 = 2_147_483_647;
/** Bounds that keep one request (and the event it becomes) reasonably small. */
const MAX_OPTIONS = 1000;
const MAX_TEXT = 3000;

export class OptionInputDto {
  @ApiProperty() @IsDefined() @IsString() @MaxLength(MAX_TEXT) label!: string;
  @ApiProperty() @IsDefined() @IsString() @MaxLength(MAX_TEXT) value!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_TEXT) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hidden?: boolean;
}

/** Fields a property has both in PropertyCreate and in a schema's ObjectTypePropertyCreate. */
class PropertyFieldsDto {
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

  @ApiPropertyOptional({ type: [OptionInputDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_OPTIONS)
  @ValidateNested({ each: true })
  @Type(() => OptionInputDto)
  options?: OptionInputDto[];

  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(-1) @Max(MAX_INT32) displayOrder?: number;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hasUniqueValue?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() hidden?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() formField?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) referencedObjectType?: string;
}

/** HubSpot's PropertyCreate (POST /crm/v3/properties/{objectType}). */
export class PropertyCreateDto extends PropertyFieldsDto {
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
}

/** A property of a new schema (ObjectTypePropertyCreate). */
export class SchemaPropertyDto extends PropertyFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100) groupName?: string;
}

export class SchemaLabelsDto {
  @ApiProperty({ example: 'Car' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) singular!: string;
  @ApiProperty({ example: 'Cars' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) plural!: string;
}

/** HubSpot's ObjectSchemaEgg (POST /crm/v3/schemas). */
export class SchemaCreateDto {
  @ApiProperty({ example: 'cars' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(100) name!: string;

  @ApiProperty({ type: SchemaLabelsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SchemaLabelsDto)
  labels!: SchemaLabelsDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(MAX_TEXT) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) primaryDisplayProperty?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  secondaryDisplayProperties?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  searchableProperties?: string[];

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

/** PUT /admin/v1/accounts/{hubId}/limits: a number sets an override, null clears it, absent keeps it. */
export class LimitOverridesDto {
  @ApiPropertyOptional({ nullable: true, minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  calculatedProperties?: number | null;
  @ApiPropertyOptional({ nullable: true, minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  customObjectTypes?: number | null;
  @ApiPropertyOptional({ nullable: true, minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  customProperties?: number | null;
}
