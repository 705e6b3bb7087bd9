import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { MAX_BATCH_INPUTS } from './limits.dto';

/** ObjectTypeDefinitionLabels in a PATCH: both labels, as the schema has both. */
export class SchemaPatchLabelsDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) singular!: string;
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(255) plural!: string;
}

const PropertyNames = () =>
  applyDecorators(
    ApiPropertyOptional({ type: [String] }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    MaxLength(100, { each: true }),
  );

/** ObjectTypeDefinitionPatch fields every version shares. */
abstract class SchemaPatchFieldsDto {
  @ApiPropertyOptional({ type: SchemaPatchLabelsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SchemaPatchLabelsDto)
  labels?: SchemaPatchLabelsDto;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(3000) description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @MaxLength(100) primaryDisplayProperty?: string;
  @PropertyNames() secondaryDisplayProperties?: string[];
  @PropertyNames() searchableProperties?: string[];
  @PropertyNames() requiredProperties?: string[];
  @ApiPropertyOptional({ description: 'Only false is supported' }) @IsOptional() @IsBoolean() restorable?: boolean;
  @ApiPropertyOptional({ description: 'Sensitive properties are not supported: only false' })
  @IsOptional()
  @IsBoolean()
  allowsSensitiveProperties?: boolean;

  abstract clearDescription?: boolean;
}

/** ObjectTypeDefinitionPatch at v3: every field optional. */
export class SchemaPatchDto extends SchemaPatchFieldsDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() clearDescription?: boolean;
}

/** ObjectTypeDefinitionPatch from 2026-03: `clearDescription` is required. */
export class SchemaPatchDatedDto extends SchemaPatchFieldsDto {
  @ApiProperty() @IsDefined() @IsBoolean() clearDescription!: boolean;
}

/** AssociationDefinitionEgg (POST /crm/v3/schemas/{objectType}/associations). */
export class AssociationDefinitionEggDto {
  @ApiProperty({ example: '2-1' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) fromObjectTypeId!: string;
  @ApiProperty({ example: 'contact' }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) toObjectTypeId!: string;
  @ApiPropertyOptional({ example: 'car_to_driver' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;
}

/** ObjectSchemaBatchReadRequest: the three include flags and the inputs are required at every version. */
export class SchemaBatchReadDto {
  @ApiProperty() @IsDefined() @IsBoolean() includeAssociationDefinitions!: boolean;
  @ApiProperty() @IsDefined() @IsBoolean() includeAuditMetadata!: boolean;
  @ApiProperty() @IsDefined() @IsBoolean() includePropertyDefinitions!: boolean;

  @ApiProperty({ type: [String], maxItems: MAX_BATCH_INPUTS })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_BATCH_INPUTS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  inputs!: string[];
}
