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
import { MAX_BATCH_INPUTS, MAX_OPTIONS, MAX_TEXT } from './input-bounds';
import { OptionInputDto, OptionsOf, PropertyFieldsDto } from './properties.dto';
import { NestedArray } from '../../platform/http/nested-array';

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

  @NestedArray(() => SchemaPropertyDto, { max: MAX_OPTIONS })
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
