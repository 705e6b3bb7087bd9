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

export const HUBLETS = ['na1', 'na2', 'na3', 'eu1', 'ap1'] as const;

export class CreateAccountDto {
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
