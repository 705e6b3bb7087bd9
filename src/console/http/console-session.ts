import Tokens from '@fastify/csrf';
import { Signer } from '@fastify/cookie';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { CLOCK, type Clock } from '../../platform/clock';
import { constantTimeEqual } from '../../platform/security/crypto';
import { loadOrCreateLocalKey } from '../../platform/security/signing-keys';
import { AdminKey } from '../../platform/security/admin-key';
import { consoleErrors } from '../domain/console-errors';

export const CONSOLE_COOKIE = 'hs_console_session';
/** A console sign-in lasts this long (seconds). */
export const CONSOLE_SESSION_TTL_SECONDS = 8 * 60 * 60;

export interface ConsoleSession {
  signedIn: boolean;
  /** @fastify/csrf's secret for this browser: every form carries a token made from it. */
  csrfSecret: string;
}

/**
 * The console's session: a cookie signed by @fastify/cookie's Signer (HMAC, keyed by SESSION_SECRET
 * or a key kept in DATA_DIR, apart from the install page's) holding only whether the browser signed
 * in, until when, and its CSRF secret — HttpOnly, SameSite=Strict, Secure when the request came over
 * HTTPS, path /console. CSRF tokens come from @fastify/csrf (the library under the install page's
 * @fastify/csrf-protection), checked on every POST, the sign-in form's included.
 */
@Injectable()
export class ConsoleSessions {
  private readonly signer: Signer;
  // An options object picks the typings without userInfo (a bare `new Tokens()` would pick the userInfo variant).
  private readonly tokens = new Tokens({});

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly adminKey: AdminKey,
  ) {
    const base = config.sessionSecret
      ? createHash('sha256').update('console-session:').update(config.sessionSecret).digest()
      : loadOrCreateLocalKey(config.dataDir, 'console-session-key.json').secret;
    // Keyed by the admin key too: a new admin key ends every console session signed under the old one.
    this.signer = new Signer(createHash('sha256').update(base).update(adminKey.value).digest(), 'sha256');
  }

  /** The browser's session, or null (no cookie, a forged or expired one). */
  read(request: FastifyRequest): ConsoleSession | null {
    const raw = request.cookies?.[CONSOLE_COOKIE];
    if (typeof raw !== 'string') return null;
    const unsigned = this.signer.unsign(raw);
    if (!unsigned.valid || unsigned.value === null) return null;
    const [flag, expiresAt, csrfSecret] = unsigned.value.split('.');
    if ((flag !== '1' && flag !== '0') || !csrfSecret || !(Number(expiresAt) > this.clock.now())) return null;
    return { signedIn: flag === '1', csrfSecret: Buffer.from(csrfSecret, 'base64url').toString() };
  }

  /** The session a page's forms are made for: the browser's own, or a new signed-out one. */
  forForms(request: FastifyRequest, reply: FastifyReply): ConsoleSession {
    const session = this.read(request);
    if (session) return session;
    const fresh = { signedIn: false, csrfSecret: this.tokens.secretSync() };
    this.write(request, reply, fresh);
    return fresh;
  }

  csrfToken(session: ConsoleSession): string {
    return this.tokens.create(session.csrfSecret);
  }

  /** Refuses a POST whose `_csrf` was not made for this browser's session. */
  checkCsrf(request: FastifyRequest): ConsoleSession {
    const session = this.read(request);
    const body = request.body as Record<string, unknown> | undefined;
    const token = typeof body === 'object' && body !== null ? body._csrf : undefined;
    if (!session || typeof token !== 'string' || !this.tokens.verify(session.csrfSecret, token)) {
      throw consoleErrors.formExpired();
    }
    return session;
  }

  /** Signs in when the key is the admin key (compared in constant time); a new CSRF secret either way. */
  signIn(request: FastifyRequest, reply: FastifyReply, presented: string): void {
    if (!constantTimeEqual(presented, this.adminKey.value)) throw consoleErrors.wrongAdminKey();
    this.write(request, reply, { signedIn: true, csrfSecret: this.tokens.secretSync() });
  }

  signOut(reply: FastifyReply): void {
    void reply.clearCookie(CONSOLE_COOKIE, { path: '/console' });
  }

  private write(request: FastifyRequest, reply: FastifyReply, session: ConsoleSession): void {
    const expiresAt = this.clock.now() + CONSOLE_SESSION_TTL_SECONDS * 1000;
    const value = `${session.signedIn ? 1 : 0}.${expiresAt}.${Buffer.from(session.csrfSecret).toString('base64url')}`;
    void reply.setCookie(CONSOLE_COOKIE, this.signer.sign(value), {
      path: '/console',
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      maxAge: CONSOLE_SESSION_TTL_SECONDS,
    });
  }
}
