import { APP_TOKEN_SCOPES } from '../../platform/scopes/scope-catalog';
import { applyDecorators, Controller, Header, HttpCode, OnModuleInit, Post, Req } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendHubSpotError } from '../../platform/errors/hubspot-exception.filter';
import type { CommandContext } from '../../platform/events/envelope';
import type { ApiVersion } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { type AuthenticatedClient, ClientAuthenticator, type FormRules, OAuthForm } from '../application/oauth-form';
import {
  type ClientCredentialsTokenResponse,
  IssueToken,
  type TokenGrantRequest,
  type TokenResponse,
} from '../application/commands/issue-token';
import { RevokeToken } from '../application/commands/revoke-token';
import {
  type IntrospectionResponse,
  TokenMetadataService,
  type TokenTypeHint,
} from '../application/token-metadata.service';
import { oauthError } from '../domain/oauth-errors';
import { ClientAuthenticationThrottle } from '../rate-limit/client-authentication-throttle';
import { ACCESS_TOKEN_RESPONSE_SCHEMA, INTROSPECTION_SCHEMA, TOKEN_RESPONSE_SCHEMAS } from './wire-schemas';

type GrantType = TokenGrantRequest['grantType'];

/** One version of the token endpoint: its grants, how it reads its form, and its words for refusals. */
interface TokenEndpoint {
  grants: readonly GrantType[];
  form: FormRules;
  missingGrantType: string;
  unsupportedGrantType: string;
  /** Messages of a missing parameter where the version words them its own way (else `missing <name>`). */
  missing: Partial<Record<'code' | 'redirect_uri' | 'refresh_token', string>>;
}

const CURRENT_FORM: FormRules = {
  alsoInQuery: new Set(),
  readFirst: [],
  trimAuthorization: true,
  refuseClientAssertion: true,
};

function current(grants: readonly GrantType[]): TokenEndpoint {
  return {
    grants,
    form: CURRENT_FORM,
    missingGrantType: `missing grant_type: use ${grants.join(', ')}`,
    unsupportedGrantType: `grant_type must be one of ${grants.join(', ')}`,
    missing: {},
  };
}

/** The token endpoint per version: the grant types each version's spec lists (2026-09 dropped client_credentials). */
const TOKEN_ENDPOINTS: Record<ApiVersion, TokenEndpoint> = {
  v1: {
    grants: ['authorization_code', 'refresh_token'],
    // HubSpot's v1 spec also takes client_secret and refresh_token in the query string.
    form: {
      alsoInQuery: new Set(['refresh_token', 'client_secret']),
      readFirst: ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'client_id', 'client_secret'],
      trimAuthorization: false,
      refuseClientAssertion: false,
    },
    missingGrantType: 'missing grant_type: use authorization_code or refresh_token',
    unsupportedGrantType: 'grant_type must be authorization_code or refresh_token',
    missing: {
      code: 'missing or unknown auth code',
      redirect_uri: 'missing redirect_uri: send the redirect URI the code was issued for',
      refresh_token: 'missing or unknown refresh token',
    },
  },
  v3: current(['authorization_code', 'client_credentials', 'refresh_token']),
  '2026-03': current(['authorization_code', 'client_credentials', 'refresh_token']),
  '2026-09': current(['authorization_code', 'refresh_token']),
};

const CURRENT_VERSIONS = ['v3', '2026-03', '2026-09'] as const;
const TOKEN_PATH = '/oauth/v1/token';

/** Routed path -> the endpoint it is; every path here authenticates a client and reads forms only. */
const ROUTES = new Map<string, { endpoint: TokenEndpoint; kind: 'token' | 'introspect' | 'revoke' }>([
  [TOKEN_PATH, { endpoint: TOKEN_ENDPOINTS.v1, kind: 'token' }],
  ...CURRENT_VERSIONS.flatMap((v) =>
    (['token', 'introspect', 'revoke'] as const).map(
      (kind) =>
        [`/oauth/${v}/token${kind === 'token' ? '' : `/${kind}`}`, { endpoint: TOKEN_ENDPOINTS[v], kind }] as const,
    ),
  ),
]);
const pathsOf = (kind: 'token' | 'introspect' | 'revoke') =>
  CURRENT_VERSIONS.map((v) => `oauth/${v}/token${kind === 'token' ? '' : `/${kind}`}`);

/** How a request at one of these paths reads its client credentials (the test controls ask), or undefined elsewhere. */
export function tokenFormRulesOf(routedPath: string): FormRules | undefined {
  return ROUTES.get(routedPath)?.endpoint.form;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const FORM = 'application/x-www-form-urlencoded';

/** One route's whole answer set: path(s), status, headers, and what /docs shows (with `serialize`, Fastify's serializer). */
function TokenRoute(
  paths: string | string[],
  summary: string,
  headers: Record<string, string>,
  wire: MethodDecorator,
): MethodDecorator {
  return applyDecorators(
    Post(paths),
    HttpCode(200),
    ...Object.entries(headers).map(([name, value]) => Header(name, value)),
    ApiOperation({ summary }),
    ApiConsumes(FORM),
    wire,
  );
}

/**
 * HubSpot's OAuth token endpoints, every version in one place: the token endpoint (v1, v3, 2026-03,
 * 2026-09; authorization_code with PKCE, refresh_token, and client_credentials where the version lists
 * it), RFC 7662 introspection and RFC 7009 revocation (v3, 2026-03, 2026-09). Forms only; client
 * credentials by HTTP Basic or in the body, one method per request. Everything these routes answer is
 * made here: the form-only gate (before the body is read) and the throttle of failed client
 * authentication (a 401 becomes 429 past its limit) included. Only reading the form and
 * authenticating the client can fail with 401, so only they sit inside the throttle's try: the
 * success path gets no extra await.
 */
@ApiTags('oauth')
@Controller()
export class TokenController implements OnModuleInit {
  constructor(
    private readonly clients: ClientAuthenticator,
    private readonly commandBus: CommandBus,
    private readonly metadata: TokenMetadataService,
    private readonly throttle: ClientAuthenticationThrottle,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /**
   * The token endpoints read forms only. A JSON (or any other) body is answered before it is parsed,
   * with HubSpot's BAD_GRANT_TYPE (v1) or invalid_request (v3 and later), not a parser error.
   */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const logger = { error: () => undefined };
    fastify.addHook('onRequest', (request, reply, done) => {
      const path = nonFormOAuthRequestPath(request);
      if (path === undefined) return done();
      sendHubSpotError(path === TOKEN_PATH ? unsupportedContentType() : nonFormRequest(), request, reply, logger);
    });
  }

  @TokenRoute(
    'oauth/v1/token',
    'OAuth token endpoint: authorization_code and refresh_token grants',
    NO_STORE,
    WireResponse(200, ACCESS_TOKEN_RESPONSE_SCHEMA, { serialize: true, description: 'HubSpot AccessTokenResponse' }),
  )
  token(@Req() request: FastifyRequest, @Ctx() ctx: CommandContext): Promise<TokenResponse> {
    // v1 lists no client_credentials: its answer is always an install's token.
    return this.issue(TOKEN_ENDPOINTS.v1, request, ctx) as Promise<TokenResponse>;
  }

  @TokenRoute(
    pathsOf('token'),
    'OAuth token endpoint: authorization_code, refresh_token and (2026-03) client_credentials',
    NO_STORE,
    WireResponse(200, TOKEN_RESPONSE_SCHEMAS.v3, {
      description: 'AccessTokenResponse or (v3, 2026-03) ClientCredentialsTokenResponse',
    }),
  )
  currentToken(
    @Req() request: FastifyRequest,
    @Ctx() ctx: CommandContext,
  ): Promise<TokenResponse | ClientCredentialsTokenResponse> {
    return this.issue(ROUTES.get(request.routeOptions.url ?? '')!.endpoint, request, ctx);
  }

  /** RFC 7662: the client's own live tokens are described; anything else is `{"active": false}`. */
  @TokenRoute(
    pathsOf('introspect'),
    'Token introspection (RFC 7662): PublicAccessTokenInfoResponse or PublicRefreshTokenInfoResponse',
    NO_STORE,
    WireResponse(200, INTROSPECTION_SCHEMA, { description: 'TokenInfoResponseBaseIF, or {"active": false}' }),
  )
  async introspect(@Req() request: FastifyRequest): Promise<IntrospectionResponse> {
    let client: AuthenticatedClient, token: string, hint: TokenTypeHint | undefined;
    try {
      const form = new OAuthForm(request, CURRENT_FORM);
      token = form.require('token');
      hint = tokenTypeHint(form);
      client = this.clients.authenticate(form.credentials());
    } catch (error) {
      throw await this.throttle.answerFor(error, request);
    }
    return this.metadata.introspect(client, token, hint);
  }

  /**
   * RFC 7009: 200 with an empty body for the client's own tokens and for tokens it does not know.
   * No Content-Type: an empty body labelled JSON is not JSON, and strict parsers fail on it. Clients
   * that insist on a JSON label (simple-oauth2's default `json: 'strict'`) take `{ json: true }` on
   * the revoke call (docs/oauth.md).
   */
  @TokenRoute(
    pathsOf('revoke'),
    'Token revocation (RFC 7009): access or refresh token',
    { 'Cache-Control': 'no-store' },
    WireResponse(200, undefined, { description: 'Empty body' }),
  )
  async revoke(@Req() request: FastifyRequest, @Ctx() ctx: CommandContext): Promise<void> {
    let client: AuthenticatedClient, token: string;
    try {
      const form = new OAuthForm(request, CURRENT_FORM);
      token = form.require('token');
      tokenTypeHint(form);
      client = this.clients.authenticate(form.credentials());
    } catch (error) {
      throw await this.throttle.answerFor(error, request);
    }
    await this.commandBus.execute(new RevokeToken(client, token, { ...ctx, actor: `app:${client.appId}` }));
  }

  /** The token endpoint of one version: its form, its grant types, the client, then IssueToken. */
  private async issue(
    endpoint: TokenEndpoint,
    request: FastifyRequest,
    ctx: CommandContext,
  ): Promise<TokenResponse | ClientCredentialsTokenResponse> {
    let client: AuthenticatedClient, grant: TokenGrantRequest;
    try {
      const form = new OAuthForm(request, endpoint.form);
      const grantType = form.get('grant_type');
      if (grantType === undefined) throw oauthError('BAD_GRANT_TYPE', 'invalid_request', endpoint.missingGrantType);
      if (!endpoint.grants.includes(grantType as GrantType)) {
        throw oauthError('BAD_GRANT_TYPE', 'unsupported_grant_type', endpoint.unsupportedGrantType);
      }
      client = this.clients.authenticate(form.credentials());
      grant = grantRequest(grantType as GrantType, form, endpoint);
    } catch (error) {
      throw await this.throttle.answerFor(error, request);
    }
    return this.commandBus.execute(new IssueToken(client, grant, { ...ctx, actor: `app:${client.appId}` }));
  }
}

/** Each grant's parameters, read after the client is authenticated (as HubSpot orders its refusals). */
function grantRequest(grantType: GrantType, form: OAuthForm, endpoint: TokenEndpoint): TokenGrantRequest {
  switch (grantType) {
    case 'authorization_code':
      return {
        grantType,
        code: form.require('code', 'BAD_AUTH_CODE', endpoint.missing.code),
        redirectUri: form.require('redirect_uri', 'BAD_REDIRECT_URI', endpoint.missing.redirect_uri),
        codeVerifier: form.get('code_verifier'),
      };
    case 'refresh_token':
      return {
        grantType,
        refreshToken: form.require('refresh_token', 'BAD_REFRESH_TOKEN', endpoint.missing.refresh_token),
      };
    case 'client_credentials': {
      // An app token names no account, so it carries no CRM scope: only the app's own (the webhooks journal's).
      const scopes = (form.get('scope') ?? '').split(' ').filter((s) => s !== '');
      const refused = scopes.filter((s) => !APP_TOKEN_SCOPES.has(s));
      if (refused.length > 0) {
        throw oauthError(
          'BAD_REQUEST',
          'invalid_scope',
          `scope ${refused.join(' ')} is not supported with client_credentials: app tokens carry only the webhooks journal scopes`,
        );
      }
      return { grantType, scopes: [...new Set(scopes)] };
    }
  }
}

const TOKEN_TYPE_HINTS: readonly string[] = ['access_token', 'refresh_token'];

function tokenTypeHint(form: OAuthForm): TokenTypeHint | undefined {
  const hint = form.get('token_type_hint');
  if (hint !== undefined && !TOKEN_TYPE_HINTS.includes(hint)) {
    throw oauthError('BAD_REQUEST', 'invalid_request', 'token_type_hint must be access_token or refresh_token');
  }
  return hint as TokenTypeHint | undefined;
}

const unsupportedContentType = () =>
  oauthError(
    'BAD_GRANT_TYPE',
    'unsupported_grant_type',
    'grant_type must be authorization_code or refresh_token, sent as application/x-www-form-urlencoded',
  );

const nonFormRequest = () =>
  oauthError(
    'BAD_REQUEST',
    'invalid_request',
    'send the parameters as application/x-www-form-urlencoded (this endpoint reads forms only)',
  );

/**
 * The path of a POST to a form-only OAuth endpoint that carries a body that is not a form (JSON,
 * multipart, text...), or undefined when the request is fine or goes elsewhere. The routed path
 * decides (`/oauth/v1/%74oken` and `http://host/oauth/v1/token` reach the token route too); the
 * raw path only when nothing routed.
 */
export function nonFormOAuthRequestPath(
  request: Pick<FastifyRequest, 'method' | 'url' | 'headers'> & { routeOptions?: { url?: string } },
): string | undefined {
  if (request.method !== 'POST') return undefined;
  let path = request.routeOptions?.url;
  if (path === undefined) {
    const q = request.url.indexOf('?');
    path = q < 0 ? request.url : request.url.slice(0, q);
  }
  if (!ROUTES.has(path)) return undefined;
  const type = request.headers['content-type'];
  if (type === undefined) return undefined;
  return type.split(';')[0]!.trim().toLowerCase() !== FORM ? path : undefined;
}

/** True when a POST to the v1 token endpoint carries a body that is not a form (JSON, multipart, text...). */
export function isNonFormTokenRequest(
  request: Pick<FastifyRequest, 'method' | 'url' | 'headers'> & { routeOptions?: { url?: string } },
): boolean {
  return nonFormOAuthRequestPath(request) === TOKEN_PATH;
}
