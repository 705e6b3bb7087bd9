import { Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../platform/events/envelope';
import { Ctx } from '../../platform/http/request-context';
import { ClientAuthenticator } from '../application/client-authentication';
import { IssueAccessTokenFromRefreshToken } from '../application/commands/issue-access-token-from-refresh-token';
import type { TokenResponse } from '../application/commands/issue-token';
import { RedeemAuthorizationCode } from '../application/commands/redeem-authorization-code';
import { oauthError } from '../domain/oauth-errors';
import { readTokenRequest } from './token-request';
import { WireResponse } from '../../platform/http/wire-response';
import { ACCESS_TOKEN_RESPONSE_SCHEMA } from './wire-schemas';

@ApiTags('oauth')
@Controller('oauth/v1')
export class TokenController {
  constructor(
    private readonly clients: ClientAuthenticator,
    private readonly commandBus: CommandBus,
  ) {}

  @Post('token')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({ summary: 'OAuth token endpoint: authorization_code and refresh_token grants' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @WireResponse(200, ACCESS_TOKEN_RESPONSE_SCHEMA, { serialize: true, description: 'HubSpot AccessTokenResponse' })
  async token(@Req() request: FastifyRequest, @Ctx() ctx: CommandContext): Promise<TokenResponse> {
    const params = readTokenRequest(request);
    if (params.grantType === undefined) {
      throw oauthError(
        'BAD_GRANT_TYPE',
        'invalid_request',
        'missing grant_type: use authorization_code or refresh_token',
      );
    }
    if (params.grantType !== 'authorization_code' && params.grantType !== 'refresh_token') {
      throw oauthError(
        'BAD_GRANT_TYPE',
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token',
      );
    }
    const client = this.clients.authenticate(params.credentials);
    const actor = { ...ctx, actor: `app:${client.appId}` };

    if (params.grantType === 'authorization_code') {
      if (params.code === undefined)
        throw oauthError('BAD_AUTH_CODE', 'invalid_request', 'missing or unknown auth code');
      if (params.redirectUri === undefined) {
        throw oauthError(
          'BAD_REDIRECT_URI',
          'invalid_request',
          'missing redirect_uri: send the redirect URI the code was issued for',
        );
      }
      return this.commandBus.execute(
        new RedeemAuthorizationCode(client, params.code, params.redirectUri, params.codeVerifier, actor),
      );
    }
    if (params.refreshToken === undefined) {
      throw oauthError('BAD_REFRESH_TOKEN', 'invalid_request', 'missing or unknown refresh token');
    }
    return this.commandBus.execute(new IssueAccessTokenFromRefreshToken(client, params.refreshToken, actor));
  }
}
