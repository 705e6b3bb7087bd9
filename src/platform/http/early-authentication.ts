import { Injectable } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * The credentials a route's guard checks: the admin key, an OAuth access token, or (the cards
 * developer routes) an access token or a developer API key.
 */
export type RouteAuthentication = 'admin' | 'bearer' | 'developer';

/** The key of a route's Fastify config that names its authentication. */
const CONFIG_KEY = 'authentication';

/** The authentication a route was marked with by AuthenticateBeforeBody (its Fastify route config), if any. */
export function routeAuthenticationOf(config: unknown): RouteAuthentication | undefined {
  return (config as Record<string, unknown> | undefined)?.[CONFIG_KEY] as RouteAuthentication | undefined;
}

/** Checks a request's credentials alone (no scopes, no body); throws the guard's 401 when they fail. */
export type RequestAuthenticator = (request: FastifyRequest) => void;

/**
 * Marks a route (or every route of a controller) as authenticated before its body is read: its
 * credentials are checked in Fastify's onRequest hook, so an unauthenticated request is answered
 * 401 without its body being received or parsed. The route's guard still runs as before (scopes,
 * actor); this only moves the refusal of bad credentials ahead of the body.
 */
export function AuthenticateBeforeBody(kind: RouteAuthentication): ClassDecorator & MethodDecorator {
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
 * directory's admin key, the OAuth module's token verification). One global instance.
 */
@Injectable()
export class EarlyAuthentication {
  private readonly authenticators = new Map<RouteAuthentication, RequestAuthenticator>();

  register(kind: RouteAuthentication, authenticate: RequestAuthenticator): void {
    this.authenticators.set(kind, authenticate);
  }

  /** Runs the authenticator of `kind` (throws its 401); nothing when no module registered one. */
  authenticate(kind: RouteAuthentication, request: FastifyRequest): void {
    this.authenticators.get(kind)?.(request);
  }

  /**
   * Adds the onRequest check to a route marked by AuthenticateBeforeBody (called from the onRoute
   * hook). The authenticator is looked up per request, so modules may register after the routes
   * were added; a kind nobody registered is left to the route's guard.
   */
  addTo(route: RouteOptions, fail: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void): void {
    const kind = routeAuthenticationOf(route.config);
    if (kind === undefined) return;
    // Fastify reads no body for GET and HEAD: the guard's own check is early enough there, and the
    // read routes (limits, properties, schemas GETs) are the hot ones, so they check credentials once.
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
