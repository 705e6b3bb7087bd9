import { createParamDecorator, type ExecutionContext, Injectable, type OnModuleInit } from '@nestjs/common';
import { DirectoryQueries } from '../../directory/directory.queries';
import type { BearerCaller } from '../../oauth';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { Authenticators, type Caller } from '../../platform/http/authentication';
import type { RequestWithActor } from '../../platform/http/request-context';
import { sha256Hex } from '../../platform/security/crypto';

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
  developer?: DeveloperCaller;
}

/** HubSpot's answer to a developer API key it does not know. */
const INVALID_API_KEY =
  'The API key provided is invalid. View or manage your API key here: https://app.hubspot.com/l/api-key/';

/** Longer than any key we issue (a UUID); anything longer is refused before it is hashed. */
const MAX_KEY_LENGTH = 200;

/**
 * The `developer` credential of `@Authenticated({ by: 'developer', ... })`, for the cards-dev
 * endpoints, which accept either credential HubSpot documents for them: an OAuth bearer token of the
 * developer account (the `bearer` credential, checked exactly as elsewhere; the guard then checks
 * the route's scopes against it), or the developer account's API key as `?hapikey=` (what
 * `@hubspot/api-client` v14's `cardsApi` sends when the client has a `developerApiKey`), which has
 * no scopes. A key grants every cards-dev operation on the apps of its account; a token only on the
 * app it was issued to (both checked by AppOwnership; the reasons and sources are in docs/cards.md).
 * The key is looked up by its SHA-256, so no comparison ever sees the key itself. With an
 * Authorization header the bearer token decides, hapikey or not.
 */
@Injectable()
export class DeveloperAuthentication implements OnModuleInit {
  constructor(
    private readonly directory: DirectoryQueries,
    private readonly authenticators: Authenticators,
  ) {}

  onModuleInit(): void {
    this.authenticators.register('developer', (request) => this.authenticate(request));
  }

  private authenticate(request: RequestWithCaller): Caller {
    const hapikey = hapikeyOf(request);
    return hapikey !== undefined ? this.byDeveloperApiKey(hapikey) : this.byBearerToken(request);
  }

  private byDeveloperApiKey(hapikey: unknown): Caller {
    if (typeof hapikey !== 'string' || hapikey.length === 0 || hapikey.length > MAX_KEY_LENGTH) {
      throw HubSpotError.invalidAuthentication(INVALID_API_KEY);
    }
    const key = this.directory.findDeveloperApiKeyByHash(sha256Hex(hapikey));
    if (!key) throw HubSpotError.invalidAuthentication(INVALID_API_KEY);
    const developer: DeveloperCaller = {
      hubId: key.hubId,
      userId: DEVELOPER_API_KEY_USER_ID,
      via: 'developer_hapikey',
    };
    return {
      actor: `developer-api-key:${key.keyId}/hub:${key.hubId}`,
      admit: (request: RequestWithCaller) => {
        request.developer = developer;
        request.developerApiKeyHubId = key.hubId;
      },
    };
  }

  /** The `bearer` credential's own check (once per request), its caller seen as the developer account's. */
  private byBearerToken(request: RequestWithCaller): Caller {
    const bearer = this.authenticators.authenticate('bearer', request) as BearerCaller | undefined;
    if (bearer === undefined) throw new Error("developer routes need the OAuth module's bearer credential");
    const { claims } = bearer;
    const developer: DeveloperCaller = {
      hubId: claims.hubId,
      userId: claims.userId,
      via: 'oauth',
      appId: claims.appId,
    };
    return {
      actor: bearer.actor,
      scopes: bearer.scopes,
      admit: (admitted: RequestWithCaller) => {
        bearer.admit?.(admitted);
        admitted.developer = developer;
      },
    };
  }
}

/** The `?hapikey=` that authenticates the request: only without an Authorization header. */
function hapikeyOf(request: Pick<RequestWithCaller, 'query' | 'headers'>): unknown {
  if (request.headers.authorization !== undefined) return undefined;
  return (request.query as Record<string, unknown> | undefined)?.hapikey;
}

/** `@Developer() caller: DeveloperCaller` — the caller admitted by `@Authenticated({ by: 'developer' })`. */
export const Developer = createParamDecorator((_: unknown, ctx: ExecutionContext): DeveloperCaller => {
  const developer = ctx.switchToHttp().getRequest<RequestWithCaller>().developer;
  if (!developer) throw new Error("@Developer() used on a route without @Authenticated({ by: 'developer' })");
  return developer;
});
