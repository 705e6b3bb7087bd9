import {
  applyDecorators,
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { type AccessTokenClaims, BearerTokenGuard, missingAnyScopeError } from '../../oauth';
import { versionOfRoute } from '../../platform/http/api-versions';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { RequestWithActor } from '../../platform/http/request-context';
import { sha256Hex } from '../../platform/security/crypto';

const SCOPES = 'webhooks:scopes';
const INVALID_API_KEY =
  'The API key provided is invalid. View or manage your API key here: https://app.hubspot.com/l/api-key/';

/** The developer account calling, and with an OAuth token the one app the token belongs to. */
export interface WebhooksCaller {
  hubId: number;
  appId?: number;
}

interface RequestWithCaller extends RequestWithActor {
  token?: AccessTokenClaims;
  webhooksCaller?: WebhooksCaller;
}

/**
 * Who may manage an app's webhooks, as each version's spec declares: the developer API key
 * (`?hapikey=`, what `@hubspot/api-client`'s webhooks APIs send) of the app's developer account at
 * every version, and at v3 and 2026-03 also an OAuth token of the app with `developers-read` /
 * `developers-write` (2026-09 names the developer key only). The app itself is checked by the
 * controller (unknown: 404; another developer's: 403).
 */
@Injectable()
export class WebhooksAuthGuard implements CanActivate {
  private bearer: Promise<BearerTokenGuard> | undefined;

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly directory: DirectoryQueries,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    const hapikey =
      request.headers.authorization === undefined
        ? (request.query as Record<string, unknown> | undefined)?.hapikey
        : undefined;
    if (hapikey !== undefined) {
      if (typeof hapikey !== 'string' || hapikey.length === 0 || hapikey.length > 200) {
        throw HubSpotError.invalidAuthentication(INVALID_API_KEY);
      }
      const key = this.directory.findDeveloperApiKeyByHash(sha256Hex(hapikey));
      if (!key) throw HubSpotError.invalidAuthentication(INVALID_API_KEY);
      request.actor = `developer-api-key:${key.keyId}/hub:${key.hubId}`;
      request.developerApiKeyHubId = key.hubId;
      request.webhooksCaller = { hubId: key.hubId };
      return true;
    }
    const version = versionOfRoute(request.routeOptions.url ?? '');
    if (version === '2026-09') {
      throw HubSpotError.invalidAuthentication(
        'The 2026-09 webhooks API takes the developer API key of the app’s developer account (?hapikey=).',
      );
    }
    this.bearer ??= this.moduleRef.create(BearerTokenGuard);
    if (!(await (await this.bearer).canActivate(context))) return false;
    const token = request.token;
    if (!token) return false;
    const anyOf = this.reflector.getAllAndOverride<string[]>(SCOPES, [context.getHandler(), context.getClass()]) ?? [];
    if (anyOf.length > 0 && !anyOf.some((s) => token.scopes.includes(s))) throw missingAnyScopeError(anyOf);
    request.webhooksCaller = { hubId: token.hubId, appId: token.appId };
    return true;
  }
}

/** `@WebhooksAuth('developers-write')`: the developer API key, or (v3, 2026-03) a token with any of these scopes. */
export const WebhooksAuth = (...anyOf: string[]) =>
  applyDecorators(
    SetMetadata(SCOPES, anyOf),
    UseGuards(WebhooksAuthGuard),
    ApiBearerAuth(),
    ApiSecurity('developer_hapikey'),
  );

export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): WebhooksCaller => {
  const caller = ctx.switchToHttp().getRequest<RequestWithCaller>().webhooksCaller;
  if (!caller) throw new Error('@Caller() used on a route without @WebhooksAuth()');
  return caller;
});

/** The app the caller manages: unknown 404, another developer account's (or another app's token) 403. */
export function checkAppOwnership(directory: DirectoryQueries, caller: WebhooksCaller, appId: number): void {
  const app = directory.getApp(appId);
  if (!app) throw HubSpotError.notFound(`App ${appId} was not found.`);
  if (caller.appId !== undefined && caller.appId !== appId) {
    throw HubSpotError.forbidden(
      `This access token was issued to app ${caller.appId}; it manages that app's webhooks only.`,
    );
  }
  if (app.developerHubId !== caller.hubId) {
    throw HubSpotError.forbidden(
      `App ${appId} belongs to developer account ${app.developerHubId}; these credentials are for account ${caller.hubId}.`,
    );
  }
}
