import { Controller, Delete, Get, Header, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/constant-time';
import { Ctx } from '../../platform/http/request-context';
import { TokenMetadataService, type AccessTokenInfo, RefreshTokenInfo } from '../application/token-metadata.service';
import { RevokeRefreshToken } from '../application/commands/revoke-refresh-token';
import { WireResponse } from '../../platform/http/wire-response';
import { ACCESS_TOKEN_INFO_SCHEMA, REFRESH_TOKEN_INFO_SCHEMA } from './wire-schemas';

/** The token sits in the path: the logger redacts that segment (src/shared/logging/logger.ts). */
@ApiTags('oauth')
@Controller('oauth/v1')
export class TokenMetadataController {
  constructor(
    private readonly metadata: TokenMetadataService,
    private readonly commandBus: CommandBus,
    private readonly runner: ProjectionRunner,
  ) {}

  @Get('access-tokens/:token')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Access token metadata (HubSpot AccessTokenInfoResponse)' })
  @WireResponse(200, ACCESS_TOKEN_INFO_SCHEMA, { serialize: true, description: 'AccessTokenInfoResponse' })
  accessToken(@Param('token') token: string): AccessTokenInfo {
    return this.metadata.accessTokenInfo(token);
  }

  @Get('refresh-tokens/:token')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Refresh token metadata (HubSpot RefreshTokenInfoResponse)' })
  @WireResponse(200, REFRESH_TOKEN_INFO_SCHEMA, { description: 'RefreshTokenInfoResponse' })
  refreshToken(@Param('token') token: string): Promise<RefreshTokenInfo> {
    return this.metadata.refreshTokenInfo(token);
  }

  /** 204; a second delete is 204 too (nothing happens); an unknown token is 404. */
  @Delete('refresh-tokens/:token')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a refresh token (access tokens already issued stay valid)' })
  @WireResponse(204)
  async deleteRefreshToken(@Param('token') token: string, @Ctx() ctx: CommandContext): Promise<void> {
    const { position } = await this.commandBus.execute(
      new RevokeRefreshToken(sha256Hex(token), 'deleted_by_client', ctx),
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }
}
