import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  type ValidationOptions,
} from 'class-validator';
import {
  MAX_IN_VALUES,
  MAX_LIMIT,
  MAX_PROPERTIES,
  MAX_QUERY_LENGTH,
  MAX_SORTS,
  type Scalar,
  SEARCH_OPERATORS,
  type SearchOperator,
} from '../domain/search-request';
import { NestedArray } from '../../platform/http/nested-array';

/**
 * HubSpot's PublicObjectSearchRequest as class-validator DTOs: the shape of the body (types, ranges,
 * what each operator needs). HubSpot's caps on filter groups and filters, the words of `query` and the
 * 10,000-result window are the domain's (`searchRequestFrom`), with HubSpot's own texts; the arrays
 * here are bounded wider than the caps only so that a hostile body costs little before they apply.
 */
const MAX_NAME = 1000;
/** A property name is read without its surrounding blanks: `"  "` is no name. */
const Trimmed = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));
const BOUND_GROUPS = 100;
const BOUND_FILTERS = 100;

/** A filter value as apps send it: a string, a finite number or a boolean (HubSpot takes all three). */
function IsScalar(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isScalar',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a string, a number or a boolean`, ...options },
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' ? v.length <= MAX_QUERY_LENGTH : typeof v === 'boolean' || Number.isFinite(v),
      },
    });
}

const VALUE_OPERATORS: readonly SearchOperator[] = [
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
];
const needs = (ops: readonly SearchOperator[], field: 'value' | 'highValue' | 'values') => (f: SearchFilterDto) =>
  ops.includes(f.operator) || f[field] !== undefined;

export class SearchFilterDto {
  @ApiProperty({ example: 'email' })
  @Trimmed()
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME)
  propertyName!: string;

  @ApiProperty({ enum: SEARCH_OPERATORS })
  @IsDefined()
  @IsIn(SEARCH_OPERATORS, { message: `operator must be one of ${SEARCH_OPERATORS.join(', ')}` })
  operator!: SearchOperator;

  @ApiPropertyOptional({ description: 'string, number or boolean' })
  @ValidateIf(needs(VALUE_OPERATORS, 'value'))
  @IsDefined()
  @IsScalar()
  value?: Scalar;

  @ApiPropertyOptional({ description: 'BETWEEN: the upper bound' })
  @ValidateIf(needs(['BETWEEN'], 'highValue'))
  @IsDefined()
  @IsScalar()
  highValue?: Scalar;

  @ApiPropertyOptional({ description: 'IN and NOT_IN', type: [String] })
  @ValidateIf(needs(['IN', 'NOT_IN'], 'values'))
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IN_VALUES)
  @IsScalar({ each: true, message: 'values must hold strings, numbers or booleans' })
  values?: Scalar[];
}

export class FilterGroupDto {
  @NestedArray(() => SearchFilterDto, { max: BOUND_FILTERS })
  filters!: SearchFilterDto[];
}

export class SortDto {
  @ApiProperty({ example: 'createdate' })
  @Trimmed()
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME)
  propertyName!: string;

  @ApiPropertyOptional({ enum: ['ASCENDING', 'DESCENDING'] })
  @IsOptional()
  @IsIn(['ASCENDING', 'DESCENDING'], { message: 'direction must be ASCENDING or DESCENDING' })
  direction?: 'ASCENDING' | 'DESCENDING';
}

/** `"createdate"` / `"-createdate"` (HubSpot takes sorts as strings too) read as a SortDto. */
const sortOf = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const name = v.trim();
  const descending = name.startsWith('-');
  return plainToInstance(SortDto, {
    propertyName: descending ? name.slice(1).trim() : name,
    direction: descending ? 'DESCENDING' : 'ASCENDING',
  });
};

/** An integer sent as a string of digits (HubSpot's cursors are strings) read as the number. */
const digitsAsNumber = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const s = value.trim();
  if (s === '') return undefined;
  return /^\d{1,9}$/.test(s) ? Number(s) : value;
};

export class SearchRequestDto {
  @NestedArray(() => FilterGroupDto, {
    max: BOUND_GROUPS,
    optional: true,
    api: { description: 'OR of groups; at most 5 groups, 10 filters a group, 25 in all' },
  })
  filterGroups?: FilterGroupDto[];

  @ApiPropertyOptional({ maxLength: MAX_QUERY_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_QUERY_LENGTH)
  query?: string;

  @NestedArray(() => SortDto, {
    max: MAX_SORTS,
    optional: true,
    api: { description: '"createdate", "-createdate" or {propertyName, direction}' },
  })
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map(sortOf) : value))
  sorts?: SortDto[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PROPERTIES)
  @IsString({ each: true })
  @MaxLength(MAX_NAME, { each: true })
  properties?: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LIMIT, default: 10 })
  @IsOptional()
  @Transform(digitsAsNumber)
  @IsInt({ message: `limit must be an integer from 1 to ${MAX_LIMIT}` })
  @Min(1, { message: `limit must be an integer from 1 to ${MAX_LIMIT}` })
  @Max(MAX_LIMIT, { message: `limit must be an integer from 1 to ${MAX_LIMIT}` })
  limit?: number;

  @ApiPropertyOptional({ description: 'the previous page’s paging.next.after (an offset), string or number' })
  @IsOptional()
  @Transform(digitsAsNumber)
  @IsInt({ message: 'after must be the cursor of a previous page (a non-negative integer)' })
  @Min(0, { message: 'after must be the cursor of a previous page (a non-negative integer)' })
  after?: number;
}
