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

/**
 * The install page's session: an encrypted, authenticated cookie (@fastify/secure-session,
 * libsodium secretbox) holding only the user id and the CSRF secret — HttpOnly, SameSite=Lax,
 * Secure when the request came over HTTPS, scoped to /oauth. CSRF tokens come from
 * @fastify/csrf-protection, bound to that session.
 */
export async function registerInstallPageSession(fastify: FastifyInstance, config: AppConfig): Promise<void> {
  await fastify.register(fastifySecureSession, {
    key: sessionKey(config),
    cookieName: SESSION_COOKIE,
    expiry: SESSION_TTL_SECONDS,
    cookie: { path: '/oauth', httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: SESSION_TTL_SECONDS },
  });
  await fastify.register(fastifyCsrfProtection, { sessionPlugin: '@fastify/secure-session' });
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
