import { Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { ClientAuthenticator } from '../application/client-authentication';
import {
  type ClientCredentialsTokenResponse,
  IssueAppAccessToken,
} from '../application/commands/issue-app-access-token';
import { IssueAccessTokenFromRefreshToken } from '../application/commands/issue-access-token-from-refresh-token';
import type { TokenResponse } from '../application/commands/issue-token';
import { RedeemAuthorizationCode } from '../application/commands/redeem-authorization-code';
import { RevokeToken } from '../application/commands/revoke-token';
import {
  type IntrospectionResponse,
  TokenMetadataService,
  type TokenTypeHint,
} from '../application/token-metadata.service';
import { oauthError } from '../domain/oauth-errors';
import { OAuthForm } from './oauth-form';
import { WireResponse } from '../../platform/http/wire-response';
import { INTROSPECTION_SCHEMA, TOKEN_RESPONSE_SCHEMAS } from './wire-schemas';

/** The grant types each version's spec lists (2026-09 dropped client_credentials). */
const GRANT_TYPES: Record<ApiVersion, readonly string[]> = {
  v1: ['authorization_code', 'refresh_token'],
  v3: ['authorization_code', 'client_credentials', 'refresh_token'],
  '2026-03': ['authorization_code', 'client_credentials', 'refresh_token'],
  '2026-09': ['authorization_code', 'refresh_token'],
};

const TOKEN_TYPE_HINTS: readonly string[] = ['access_token', 'refresh_token'];

function tokenTypeHint(form: OAuthForm): TokenTypeHint | undefined {
  const hint = form.get('token_type_hint');
  if (hint !== undefined && !TOKEN_TYPE_HINTS.includes(hint)) {
    throw oauthError('BAD_REQUEST', 'invalid_request', 'token_type_hint must be access_token or refresh_token');
  }
  return hint as TokenTypeHint | undefined;
}

/**
 * HubSpot's current OAuth endpoints, one controller for `/oauth/v3`, `/oauth/2026-03` and
 * `/oauth/2026-09`: the token endpoint (authorization_code with PKCE and refresh_token as in v1, plus
 * client_credentials where the version lists it), RFC 7662 introspection and RFC 7009 revocation.
 * Forms only; client credentials by HTTP Basic or in the body, one method per request. The v1 token
 * endpoint (TokenController) is unchanged.
 */
@ApiTags('oauth')
@Controller(versionedPaths({ v3: 'oauth/v3', '2026-03': 'oauth/2026-03', '2026-09': 'oauth/2026-09' }))
export class OAuthTokensController {
  constructor(
    private readonly clients: ClientAuthenticator,
    private readonly commandBus: CommandBus,
    private readonly metadata: TokenMetadataService,
  ) {}

  @Post('token')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({ summary: 'OAuth token endpoint: authorization_code, refresh_token and (2026-03) client_credentials' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @WireResponse(200, TOKEN_RESPONSE_SCHEMAS.v3, {
    description: 'AccessTokenResponse or (v3, 2026-03) ClientCredentialsTokenResponse',
  })
  async token(
    @Req() request: FastifyRequest,
    @RouteVersion() version: ApiVersion,
    @Ctx() ctx: CommandContext,
  ): Promise<TokenResponse | ClientCredentialsTokenResponse> {
    const form = new OAuthForm(request);
    const grants = GRANT_TYPES[version];
    const grantType = form.get('grant_type');
    if (grantType === undefined) {
      throw oauthError('BAD_GRANT_TYPE', 'invalid_request', `missing grant_type: use ${grants.join(', ')}`);
    }
    if (!grants.includes(grantType)) {
      throw oauthError('BAD_GRANT_TYPE', 'unsupported_grant_type', `grant_type must be one of ${grants.join(', ')}`);
    }
    const client = this.clients.authenticate(form.credentials());
    const actor = { ...ctx, actor: `app:${client.appId}` };

    switch (grantType) {
      case 'authorization_code': {
        const code = form.require('code', 'BAD_AUTH_CODE');
        const redirectUri = form.require('redirect_uri', 'BAD_REDIRECT_URI');
        return this.commandBus.execute(
          new RedeemAuthorizationCode(client, code, redirectUri, form.get('code_verifier'), actor),
        );
      }
      case 'refresh_token':
        return this.commandBus.execute(
          new IssueAccessTokenFromRefreshToken(client, form.require('refresh_token', 'BAD_REFRESH_TOKEN'), actor),
        );
      default:
        // An app token names no account, so it carries no CRM scope to ask for.
        if (form.get('scope') !== undefined) {
          throw oauthError(
            'BAD_REQUEST',
            'invalid_scope',
            'scope is not supported with client_credentials: app tokens carry no scopes',
          );
        }
        return this.commandBus.execute(new IssueAppAccessToken(client, actor));
    }
  }

  /** RFC 7662: the client's own live tokens are described; anything else is `{"active": false}`. */
  @Post('token/introspect')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'Token introspection (RFC 7662): PublicAccessTokenInfoResponse or PublicRefreshTokenInfoResponse',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @WireResponse(200, INTROSPECTION_SCHEMA, { description: 'TokenInfoResponseBaseIF, or {"active": false}' })
  introspect(@Req() request: FastifyRequest): Promise<IntrospectionResponse> {
    const form = new OAuthForm(request);
    const token = form.require('token');
    const hint = tokenTypeHint(form);
    const client = this.clients.authenticate(form.credentials());
    return this.metadata.introspect(client, token, hint);
  }

  /**
   * RFC 7009: 200 with an empty body for the client's own tokens and for tokens it does not know.
   * Labelled JSON so clients that insist on a JSON answer (simple-oauth2's default) accept it.
   */
  @Post('token/revoke')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({ summary: 'Token revocation (RFC 7009): access or refresh token' })
  @WireResponse(200, undefined, { description: 'Empty body' })
  @ApiConsumes('application/x-www-form-urlencoded')
  async revoke(@Req() request: FastifyRequest, @Ctx() ctx: CommandContext): Promise<void> {
    const form = new OAuthForm(request);
    const token = form.require('token');
    tokenTypeHint(form);
    const client = this.clients.authenticate(form.credentials());
    await this.commandBus.execute(new RevokeToken(client, token, { ...ctx, actor: `app:${client.appId}` }));
  }
}
