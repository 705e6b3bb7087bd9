import { Controller, Delete, Get, Header, HttpCode, Inject, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/crypto';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import {
  accessTokenExpiredError,
  type AccessTokenInfo,
  accessTokenInfo,
  AccessTokenVerifier,
} from '../application/access-token-verifier';
import { TokenMetadataService, type RefreshTokenInfo } from '../application/token-metadata.service';
import { DeleteRefreshToken } from '../application/commands/delete-refresh-token';
import { ACCESS_TOKEN_INFO_SCHEMA, REFRESH_TOKEN_INFO_SCHEMA } from './wire-schemas';

/** The token sits in the path: the logger redacts that segment (platform/logging/redact-url.ts). */
@ApiTags('oauth')
@Controller('oauth/v1')
export class TokenMetadataController {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly directory: DirectoryQueries,
    private readonly metadata: TokenMetadataService,
    private readonly commandBus: CommandBus,
    private readonly runner: ProjectionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** From the token itself and the one check: no store read (the e-mail and domain are remembered). */
  @Get('access-tokens/:token')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Access token metadata (HubSpot AccessTokenInfoResponse)' })
  @WireResponse(200, ACCESS_TOKEN_INFO_SCHEMA, { serialize: true, description: 'AccessTokenInfoResponse' })
  accessToken(@Param('token') token: string): AccessTokenInfo {
    const check = this.verifier.check(token);
    switch (check.status) {
      case 'malformed':
        throw new HubSpotError(400, 'VALIDATION_ERROR', 'The access token is malformed.', {
          status: 'BAD_ACCESS_TOKEN',
          errors: [{ message: 'not an access token issued by this service', in: 'token', code: 'INVALID' }],
        });
      case 'bad_signature':
        throw new HubSpotError(
          401,
          'INVALID_AUTHENTICATION',
          'The access token is not valid: its signature does not verify.',
          {
            status: 'BAD_ACCESS_TOKEN',
          },
        );
      case 'expired':
        throw accessTokenExpiredError(check.expiredAt, check.now, 'metadata');
      case 'revoked':
        throw notAnInstallToken();
    }
    const { claims, now } = check;
    // App tokens (client_credentials) and revoked or uninstalled ones are described only by introspection.
    if (claims.appToken) throw notAnInstallToken();
    return accessTokenInfo({
      token,
      claims,
      now,
      userEmail: this.directory.userEmail(claims.userId),
      hubDomain: this.directory.accountDomain(claims.hubId),
      audience: this.config.publicUrl,
    });
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
      new DeleteRefreshToken(sha256Hex(token), 'deleted_by_client', ctx),
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }
}

const notAnInstallToken = () =>
  new HubSpotError(
    401,
    'INVALID_AUTHENTICATION',
    'The access token is not valid: it was revoked or is not an install token.',
    {
      status: 'BAD_ACCESS_TOKEN',
    },
  );
