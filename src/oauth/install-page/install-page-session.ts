import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifySecureSession from '@fastify/secure-session';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { AppConfig } from '../../platform/config/config';
import { loadOrCreateLocalKey } from '../../platform/security/signing-keys';

declare module '@fastify/secure-session' {
  interface SessionData {
    /** The signed-in user of the install page. */
    userId: number;
    /** The user's session generation at sign-in (SessionGenerations): a sign-out moves it on. */
    generation: number;
    /** @fastify/csrf-protection's per-session secret. */
    _csrf: string;
  }
}

export const SESSION_COOKIE = 'hs_install_session';
/** A sign-in on the install page lasts this long (seconds), like a short HubSpot login session. */
export const SESSION_TTL_SECONDS = 8 * 60 * 60;

/** secretbox wants exactly 32 bytes; SESSION_SECRET may be longer, so it is condensed with SHA-256. */
export function sessionKey(config: AppConfig): Buffer {
  if (config.sessionSecret) return createHash('sha256').update(config.sessionSecret).digest();
  return loadOrCreateLocalKey(config.dataDir, 'session-key.json').secret;
}

/** The install page's routes (InstallPageController): the only ones that read or write the session. */
const INSTALL_PAGE_ROUTE = /^\/oauth\/(?::portalId\/)?authorize(?:\/|$)/;

type SessionHook = (...args: unknown[]) => unknown;

/**
 * The install page's session: an encrypted, authenticated cookie (@fastify/secure-session,
 * libsodium secretbox) holding only the user id and the CSRF secret — HttpOnly, SameSite=Lax,
 * Secure when the request came over HTTPS, scoped to /oauth. CSRF tokens come from
 * @fastify/csrf-protection, bound to that session.
 *
 * The session plugin adds an onRequest (decrypt the cookie) and an onSend (write it back) hook to
 * the instance it is registered on; on the root instance they would run on every request of the
 * service. So it is registered in a context of its own that holds no route, its two hooks are
 * taken as it adds them, and `scopeToInstallPageRoutes` attaches exactly those hooks to the install
 * page's routes only — the same code, cookie flags and key, on the routes that use them.
 */
export class InstallPageSession {
  private readonly hooks: { onRequest: SessionHook[]; onSend: SessionHook[] } = { onRequest: [], onSend: [] };

  /** Must run before the routes are added (Nest adds them before any onModuleInit). */
  scopeToInstallPageRoutes(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      if (!INSTALL_PAGE_ROUTE.test(route.url)) return;
      // Looked up per request: the plugin is registered (onModuleInit) after the routes are added.
      const hooks = this.hooks;
      function installPageSessionOnRequest(...args: unknown[]): unknown {
        return hooks.onRequest[0]!(...args);
      }
      function installPageSessionOnSend(...args: unknown[]): unknown {
        return hooks.onSend[0]!(...args);
      }
      route.onRequest = [...asArray(route.onRequest), installPageSessionOnRequest as never];
      route.onSend = [...asArray(route.onSend), installPageSessionOnSend as never];
    });
  }

  /** Registers the plugins; @fastify/cookie must already be on `fastify` (app.factory registers it). */
  async register(fastify: FastifyInstance, config: AppConfig): Promise<void> {
    if (!fastify.hasPlugin('@fastify/cookie'))
      throw new Error('@fastify/cookie must be registered before the install page session');
    await fastify.register(async (scope) => {
      const addHook = scope.addHook.bind(scope);
      scope.addHook = ((name: string, hook: SessionHook) => {
        if (name === 'onRequest' || name === 'onSend') this.hooks[name].push(hook);
        else (addHook as (n: string, h: SessionHook) => void)(name, hook);
        return scope;
      }) as typeof scope.addHook;
      await scope.register(fastifySecureSession, {
        key: sessionKey(config),
        cookieName: SESSION_COOKIE,
        expiry: SESSION_TTL_SECONDS,
        cookie: { path: '/oauth', httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: SESSION_TTL_SECONDS },
      });
    });
    // One decrypting onRequest and one writing onSend, or the routes would run without a session.
    if (this.hooks.onRequest.length !== 1 || this.hooks.onSend.length !== 1) {
      throw new Error('@fastify/secure-session did not add exactly one onRequest and one onSend hook');
    }
    // No hooks of its own: reply.generateCsrf and fastify.csrfProtection, reading request.session.
    await fastify.register(fastifyCsrfProtection, { sessionPlugin: '@fastify/secure-session' });
  }
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Runs the plugin's own check (`_csrf` from the form body against the session's secret, compared
 * in constant time by @fastify/csrf) and reports the outcome, so the page can answer with its own
 * 403 HTML page rather than the plugin's error reply.
 */
export function csrfTokenIsValid(fastify: FastifyInstance, request: FastifyRequest): Promise<boolean> {
  return new Promise((resolve) => {
    const outcome = { send: () => resolve(false) } as unknown as FastifyReply;
    try {
      fastify.csrfProtection(request, outcome, () => resolve(true));
    } catch {
      resolve(false);
    }
  });
}
