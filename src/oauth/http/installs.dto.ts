import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class ProgrammaticInstallDto {
  @ApiProperty({ description: 'Account to install the app in' })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  hubId!: number;

  @ApiProperty({ description: 'Installing user; must belong to the account' })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  userId!: number;

  @ApiProperty({ description: "One of the app's registered redirect URLs, exactly" })
  @IsString()
  @MaxLength(2048)
  redirectUri!: string;

  @ApiPropertyOptional({ type: [String], description: "Scopes to request (default: the app's required scopes)" })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  scopes?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: "Optional scopes to request (default: the app's optional scopes)",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  optionalScopes?: string[];

  @ApiPropertyOptional({ description: 'PKCE challenge: BASE64URL(SHA-256(code_verifier)); needs codeChallengeMethod' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  codeChallenge?: string;

  @ApiPropertyOptional({
    enum: ['S256'],
    description: 'Required with codeChallenge (RFC 7636 reads a missing method as plain, which is refused)',
  })
  @IsOptional()
  @IsIn(['S256'])
  codeChallengeMethod?: 'S256';

  @ApiPropertyOptional({ description: 'Echoed in redirectUrl, as the install page does' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  state?: string;
}
