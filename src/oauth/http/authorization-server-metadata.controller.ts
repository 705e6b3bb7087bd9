import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';

/** RFC 8414 authorization server metadata: where generic OAuth clients find this service's endpoints. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  introspection_endpoint: string;
  revocation_endpoint: string;
  response_types_supported: string[];
  grant_types_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  introspection_endpoint_auth_methods_supported: string[];
  revocation_endpoint_auth_methods_supported: string[];
  code_challenge_methods_supported: string[];
  service_documentation: string;
}

@ApiTags('oauth')
@Controller('.well-known')
export class AuthorizationServerMetadataController {
  private readonly document: AuthorizationServerMetadata;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const base = config.publicUrl;
    this.document = {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/2026-03/token`,
      introspection_endpoint: `${base}/oauth/2026-03/token/introspect`,
      revocation_endpoint: `${base}/oauth/2026-03/token/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      service_documentation: `${base}/docs`,
    };
  }

  @Get('oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=3600')
  @ApiOperation({ summary: 'RFC 8414 authorization server metadata (the OAuth 2026-03 endpoints)' })
  @ApiOkResponse({ description: 'Authorization server metadata' })
  metadata(): AuthorizationServerMetadata {
    return this.document;
  }
}
