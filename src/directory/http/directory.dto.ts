import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { Tier, TIERS } from '../../platform/tiers';
import { ACCOUNT_TYPES, type AccountType } from '../domain/account-settings';

export const HUBLETS = ['na1', 'na2', 'na3', 'eu1', 'ap1'] as const;

/**
 * An account's settings, each optional. Shapes are checked here; whether a time zone or currency
 * exists is the account decider's call (one errors[] entry per bad field either way).
 */
export class AccountSettingsDto {
  @ApiPropertyOptional({ enum: ACCOUNT_TYPES, default: 'STANDARD' })
  @IsOptional()
  @IsIn(ACCOUNT_TYPES)
  accountType?: AccountType;

  @ApiPropertyOptional({ example: 'America/New_York', description: 'IANA time zone; default from the hublet' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  timeZone?: string;

  @ApiPropertyOptional({ example: 'USD', description: 'ISO 4217; default from the hublet' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'companyCurrency must be an ISO 4217 code (three capital letters)' })
  companyCurrency?: string;

  @ApiPropertyOptional({ type: [String], example: ['EUR', 'GBP'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(/^[A-Z]{3}$/, { each: true, message: 'additionalCurrencies must hold ISO 4217 codes' })
  additionalCurrencies?: string[];
}

export class CreateAccountDto extends AccountSettingsDto {
  @ApiProperty({ example: 'acme.example.com' })
  @IsString()
  @MaxLength(253)
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, {
    message: 'domain must be a host name',
  })
  domain!: string;

  @ApiProperty({ enum: TIERS })
  @IsIn(TIERS)
  tier!: Tier;

  @ApiPropertyOptional({ enum: HUBLETS, default: 'na1' })
  @IsOptional()
  @IsIn(HUBLETS)
  hublet?: string;
}

export class CreateUserDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ minLength: 8, writeOnly: true })
  @IsString()
  @MinLength(8)
  @MaxLength(256)
  password!: string;

  @ApiProperty({ type: [Number] })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2_147_483_647, { each: true })
  hubIds!: number[];
}

export class RegisterAppDto {
  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  developerHubId!: number;

  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  redirectUrls!: string[];

  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  requiredScopes!: string[];

  @ApiProperty({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  optionalScopes?: string[];
}

/** A change of some of an app's settings (PATCH): absent fields stay; the client id never changes. */
export class ChangeAppSettingsDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: [String], description: "The whole list: the first is the install URL's" })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  redirectUrls?: string[];

  @ApiPropertyOptional({ type: [String], description: 'The whole list (at least one scope)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  requiredScopes?: string[];

  @ApiPropertyOptional({ type: [String], description: 'The whole list' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  optionalScopes?: string[];
}
