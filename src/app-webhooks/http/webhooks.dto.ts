import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { NestedArray } from '../../platform/http/nested-array';

/**
 * HubSpot's request bodies of the webhooks API. The shapes only: the range of
 * `maxConcurrentRequests`, target URLs and event types are the decider's (its messages), and what
 * depends on the version or on two fields together is in webhooks-input.ts.
 */

/** HubSpot's ThrottlingSettings. */
export class ThrottlingDto {
  @ApiProperty({ minimum: 1, maximum: 100 }) @IsDefined() @IsInt() maxConcurrentRequests!: number;
}

/** HubSpot's SettingsChangeRequest, or the flat `{targetUrl, maxConcurrentRequests}` some integrations send. */
export class SettingsDto {
  @ApiProperty() @IsDefined() @IsString() @IsNotEmpty() @MaxLength(2048) targetUrl!: string;
  @ApiPropertyOptional({ type: ThrottlingDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ThrottlingDto)
  throttling?: ThrottlingDto;
  @ApiPropertyOptional({ description: 'the flat shape' }) @IsOptional() @IsInt() maxConcurrentRequests?: number;
}

/** HubSpot's SubscriptionCreateRequest. */
export class SubscriptionCreateDto {
  @ApiProperty({ example: 'contact.creation' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  eventType!: string;
  @ApiPropertyOptional({ nullable: true }) @IsOptional() @IsString() @MaxLength(200) propertyName?: string | null;
  @ApiPropertyOptional({ nullable: true }) @IsOptional() @IsString() @MaxLength(100) objectTypeId?: string | null;
  @ApiPropertyOptional({ description: 'default false; required at 2026-09' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

/** HubSpot's SubscriptionPatchRequest. */
export class SubscriptionPatchDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() active?: boolean;
}

/** HubSpot's SubscriptionBatchUpdateRequest. */
export class SubscriptionBatchInputDto {
  @ApiProperty() @IsDefined() @IsInt() @Min(1) @Max(2_147_483_647) id!: number;
  @ApiProperty() @IsDefined() @IsBoolean() active!: boolean;
}

export const MAX_BATCH_INPUTS = 100;

/** HubSpot's BatchInputSubscriptionBatchUpdateRequest. */
export class SubscriptionBatchUpdateDto {
  @NestedArray(() => SubscriptionBatchInputDto, { max: MAX_BATCH_INPUTS })
  inputs!: SubscriptionBatchInputDto[];
}
