import {
  applyDecorators,
  type CanActivate,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { HubSpotError } from '../errors/hubspot-error';
import { type ApiVersion, versionOfRoute } from './api-versions';
import type { RequestWithActor } from './request-context';

/**
 * The credentials a route accepts: the admin key, an OAuth access token, (the cards developer
 * routes) an access token or a developer API key, (`/metrics`) the metrics token, or (the app's own
 * endpoints, the webhooks journal) an app token of the client_credentials grant.
 */
export type RouteAuthentication = 'admin' | 'bearer' | 'developer' | 'metrics' | 'app';

/** Who a request was authenticated as. */
export interface Caller {
  /** Stamped on the events its commands append (`actor`). */
  actor: string;
  /**
   * The scopes its credential grants. Undefined for a credential that has none (the admin key, a
   * developer API key): a route's scope rule does not apply to it.
   */
  scopes?: readonly string[];
  /**
   * Run by the guard once the route admitted the caller (its scopes held): attaches to the request
   * what the credential's module reads later (`@Token()`, `@Developer()`, the rate limits, the
   * daily count), so nothing of a refused caller is left on it.
   */
  admit?(request: RequestWithActor): void;
}

/**
 * Checks a request's credentials alone (no scopes, no body): the caller, or the 401 it throws. The
 * module that owns the credential registers it.
 */
export type Authenticator = (request: RequestWithActor) => Caller;

/** What a route's scope rule sees: its path parameters and the API version of its path. */
export interface RouteFacts {
  params: Readonly<Record<string, string | undefined>>;
  version: ApiVersion | undefined;
}

/**
 * The scopes a route accepts, any one of them (HubSpot's "any of" lists): a list, or a resolver
 * where they depend on the path (the object type, the version). Empty or absent: the credential
 * alone. A resolver may throw the route's 400 for a path parameter it cannot read.
 */
export type ScopeRule = readonly string[] | ((route: RouteFacts) => readonly string[]);

export interface AuthenticatedOptions {
  by: RouteAuthentication;
  scopes?: ScopeRule;
}

const AUTHENTICATED = 'hubspot:authenticated';
/** The key of a route's Fastify config that names its authentication (read before the guard runs). */
const CONFIG_KEY = 'authentication';
/** Where a request keeps the callers it was authenticated as, per kind: each credential is checked once. */
const CALLERS = Symbol('callers');

type RequestWithCallers = RequestWithActor & { [CALLERS]?: Partial<Record<RouteAuthentication, Caller>> };

/**
 * `@Authenticated({ by: 'bearer', scopes: [...] })` on a controller or a route: who may call it, in
 * one line. The credential is checked in Fastify's onRequest hook (before the body is received) on
 * routes that have a body, else by the guard; either way once per request. The guard then checks the
 * scope rule and records the caller as the request's actor.
 */
export const Authenticated = (options: AuthenticatedOptions) =>
  applyDecorators(
    AuthenticateBeforeBody(options.by),
    SetMetadata(AUTHENTICATED, options),
    UseGuards(AuthenticationGuard),
    ...(options.by === 'metrics' ? [] : [ApiBearerAuth()]),
    ...(options.by === 'developer' ? [ApiSecurity('developer_hapikey')] : []),
  );

/** The authentication a route was marked with (its Fastify route config), if any. */
export function routeAuthenticationOf(config: unknown): RouteAuthentication | undefined {
  return (config as Record<string, unknown> | undefined)?.[CONFIG_KEY] as RouteAuthentication | undefined;
}

/** HubSpot's 403 for a token that holds none of the accepted scopes. */
export function missingScopesError(anyOf: readonly string[]): HubSpotError {
  return HubSpotError.missingScopes(
    [...anyOf],
    `This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.`,
  );
}

/** Marks a route (or every route of a controller) with its authentication, in its Fastify route config. */
function AuthenticateBeforeBody(kind: RouteAuthentication): ClassDecorator & MethodDecorator {
  const decorate = RouteConfig({ [CONFIG_KEY]: kind });
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor !== undefined) return decorate(target, key!, descriptor);
    // On a class: Nest reads route config from each handler, so every method gets it.
    const prototype = (target as { prototype: object }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = Object.getOwnPropertyDescriptor(prototype, name);
      if (name !== 'constructor' && typeof method?.value === 'function') decorate(prototype, name, method);
    }
  }) as ClassDecorator & MethodDecorator;
}

/**
 * The authenticators of this instance, registered by the modules that own the credentials (the
 * directory's admin key, the OAuth module's access tokens, the cards module's developer API keys,
 * the ops module's metrics token).
 * One global instance.
 */
@Injectable()
export class Authenticators {
  private readonly authenticators = new Map<RouteAuthentication, Authenticator>();

  register(kind: RouteAuthentication, authenticate: Authenticator): void {
    this.authenticators.set(kind, authenticate);
  }

  /**
   * The request's caller by the credential of `kind` (throws its 401), checked at most once per
   * request: the onRequest check, the test controls and the guard share the answer. Undefined when
   * no module registered that kind (a test app without it).
   */
  authenticate(kind: RouteAuthentication, request: RequestWithActor): Caller | undefined {
    const known = (request as RequestWithCallers)[CALLERS]?.[kind];
    if (known !== undefined) return known;
    const authenticate = this.authenticators.get(kind);
    if (authenticate === undefined) return undefined;
    const caller = authenticate(request);
    ((request as RequestWithCallers)[CALLERS] ??= {})[kind] = caller;
    return caller;
  }

  /**
   * Adds the onRequest check to a route marked by `@Authenticated` (called from the onRoute hook).
   * The authenticator is looked up per request, so modules may register after the routes were
   * added; a kind nobody registered is left to the route's guard.
   */
  addTo(route: RouteOptions, fail: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void): void {
    const kind = routeAuthenticationOf(route.config);
    if (kind === undefined) return;
    // Fastify reads no body for GET and HEAD: the guard's check is early enough there.
    if ([route.method].flat().every((m) => m === 'GET' || m === 'HEAD')) return;
    const check = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      try {
        this.authenticate(kind, request);
      } catch (error) {
        return fail(error, request, reply);
      }
      done();
    };
    route.onRequest = [...[route.onRequest ?? []].flat(), check] as RouteOptions['onRequest'];
  }
}

/**
 * The one guard of every authenticated route: the caller by the route's credential (checked once per
 * request, see Authenticators), then the route's scope rule, then the caller recorded as the
 * request's actor.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticators: Authenticators,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const options = this.reflector.getAllAndOverride<AuthenticatedOptions | undefined>(AUTHENTICATED, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (options === undefined) return true;
    const request = context.switchToHttp().getRequest<RequestWithActor>();
    const caller = this.authenticators.authenticate(options.by, request);
    if (caller === undefined) throw new Error(`no authenticator registered for ${options.by} routes`);
    if (caller.scopes !== undefined && options.scopes !== undefined) {
      const anyOf =
        typeof options.scopes === 'function'
          ? options.scopes({
              params: (request.params ?? {}) as RouteFacts['params'],
              version: versionOfRoute(request.routeOptions.url ?? ''),
            })
          : options.scopes;
      const granted = caller.scopes;
      if (anyOf.length > 0 && !anyOf.some((s) => granted.includes(s))) throw missingScopesError(anyOf);
    }
    request.actor = caller.actor;
    caller.admit?.(request);
    return true;
  }
}
