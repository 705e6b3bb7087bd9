import {
  applyDecorators,
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type OnModuleInit,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { DirectoryQueries } from '../../directory/directory.queries';
import { type AccessTokenClaims, BearerTokenGuard, missingAnyScopeError } from '../../oauth';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AuthenticateBeforeBody, EarlyAuthentication } from '../../platform/http/early-authentication';
import type { RequestWithActor } from '../../platform/http/request-context';
import { sha256Hex } from '../../platform/security/crypto';

const DEVELOPER_SCOPES = 'cards:developerScopes';

/**
 * Who calls a cards-dev endpoint: the developer account (`hubId`) and, with an OAuth token, its
 * user. A developer API key belongs to the account, not to a person: its calls record user 0.
 */
export interface DeveloperCaller {
  hubId: number;
  userId: number;
  via: 'oauth' | 'developer_hapikey';
  /** With an OAuth token: the one app it was issued to, the only app it manages (docs/cards.md). */
  appId?: number;
}

/** A developer API key names no user; the cards audit history (`initiatingUserId`, an integer) records 0. */
export const DEVELOPER_API_KEY_USER_ID = 0;

interface RequestWithCaller extends RequestWithActor {
  token?: AccessTokenClaims;
  developer?: DeveloperCaller;
}

/** HubSpot's answer to a developer API key it does not know. */
const INVALID_API_KEY =
  'The API key provided is invalid. View or manage your API key here: https://app.hubspot.com/l/api-key/';

/** Longer than any key we issue (a UUID); anything longer is refused before it is hashed. */
const MAX_KEY_LENGTH = 200;

/**
 * The cards-dev endpoints accept either credential HubSpot documents for them: an OAuth bearer
 * token of the developer account (checked by the shared BearerTokenGuard, exactly as elsewhere;
 * then one of the accepted scopes), or the developer account's API key as `?hapikey=` — what
 * `@hubspot/api-client` v14's `cardsApi` sends when the client has a `developerApiKey`. A key
 * grants every cards-dev operation on the apps of its account; a token only on the app it was
 * issued to (both checked by AppOwnership; the reasons and sources are in docs/cards.md). The key is looked up by its SHA-256, so no comparison ever sees
 * the key itself. With an Authorization header the bearer token decides, hapikey or not.
 * The credential is checked in onRequest too (EarlyAuthentication), before the body is read.
 */
@Injectable()
export class DeveloperAuthGuard implements CanActivate, OnModuleInit {
  private bearer: Promise<BearerTokenGuard> | undefined;

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly directory: DirectoryQueries,
    private readonly earlyAuthentication: EarlyAuthentication,
  ) {}

  /** The credential alone (no scopes, no app) before the body: the key's lookup, or the bearer token's check. */
  onModuleInit(): void {
    this.earlyAuthentication.register('developer', (request) => {
      const hapikey = hapikeyOf(request);
      if (hapikey !== undefined) this.byDeveloperApiKey(hapikey, {});
      else this.earlyAuthentication.authenticate('bearer', request);
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    const hapikey = hapikeyOf(request);
    if (hapikey !== undefined) {
      request.developer = this.byDeveloperApiKey(hapikey, request);
      return true;
    }
    return this.byBearerToken(context, request);
  }

  private byDeveloperApiKey(
    hapikey: unknown,
    request: Pick<RequestWithCaller, 'actor' | 'developerApiKeyHubId'>,
  ): DeveloperCaller {
    if (typeof hapikey !== 'string' || hapikey.length === 0 || hapikey.length > MAX_KEY_LENGTH) {
      throw HubSpotError.invalidAuthentication(INVALID_API_KEY);
    }
    const key = this.directory.findDeveloperApiKeyByHash(sha256Hex(hapikey));
    if (!key) throw HubSpotError.invalidAuthentication(INVALID_API_KEY);
    request.actor = `developer-api-key:${key.keyId}/hub:${key.hubId}`;
    request.developerApiKeyHubId = key.hubId;
    return { hubId: key.hubId, userId: DEVELOPER_API_KEY_USER_ID, via: 'developer_hapikey' };
  }

  /**
   * The shared guard, made in this module's context (so it gets whatever it depends on), with no
   * scope list of its own: it verifies the token; the scopes of this route are checked here.
   */
  private async byBearerToken(context: ExecutionContext, request: RequestWithCaller): Promise<boolean> {
    this.bearer ??= this.moduleRef.create(BearerTokenGuard);
    if (!(await (await this.bearer).canActivate(context))) return false;
    const token = request.token;
    if (!token) return false;
    const anyOf =
      this.reflector.getAllAndOverride<string[]>(DEVELOPER_SCOPES, [context.getHandler(), context.getClass()]) ?? [];
    if (anyOf.length > 0 && !anyOf.some((s) => token.scopes.includes(s))) throw missingAnyScopeError(anyOf);
    request.developer = { hubId: token.hubId, userId: token.userId, via: 'oauth', appId: token.appId };
    return true;
  }
}

/** The `?hapikey=` that authenticates the request: only without an Authorization header. */
function hapikeyOf(request: Pick<RequestWithCaller, 'query' | 'headers'>): unknown {
  if (request.headers.authorization !== undefined) return undefined;
  return (request.query as Record<string, unknown> | undefined)?.hapikey;
}

/**
 * `@DeveloperAuth('developers-read', 'private-apps-read')`: an OAuth token with any of these
 * scopes, or the developer API key (`?hapikey=`) of the app's developer account.
 */
export const DeveloperAuth = (...anyOf: string[]) =>
  applyDecorators(
    AuthenticateBeforeBody('developer'),
    SetMetadata(DEVELOPER_SCOPES, anyOf),
    UseGuards(DeveloperAuthGuard),
    ApiBearerAuth(),
    ApiSecurity('developer_hapikey'),
  );

/** `@Developer() caller: DeveloperCaller` — set by DeveloperAuthGuard. */
export const Developer = createParamDecorator((_: unknown, ctx: ExecutionContext): DeveloperCaller => {
  const developer = ctx.switchToHttp().getRequest<RequestWithCaller>().developer;
  if (!developer) throw new Error('@Developer() used on a route without @DeveloperAuth()');
  return developer;
});
