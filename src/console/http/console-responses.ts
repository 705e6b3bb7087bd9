import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { ConsolePageError, consoleErrors } from '../domain/console-errors';
import { errorPage } from '../views/pages';
import { ConsoleSessions } from './console-session';

/** The console's pages allow inline style and its one inline script (the live tail), nothing from elsewhere. */
const CONSOLE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "script-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function sendPage(reply: FastifyReply, status: number, body: string): void {
  void reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', CONSOLE_CSP)
    .header('content-type', 'text/html; charset=utf-8')
    .send(body);
}

export function seeOther(reply: FastifyReply, location: string): void {
  void reply.status(303).header('cache-control', 'no-store').header('location', location).send();
}

/**
 * Every console route runs through here: 404 when CONSOLE_ENABLED=false, the sign-in page for a
 * browser not signed in (GET) or 403 (POST), the CSRF check on every POST, and a ConsolePageError
 * as an HTML page with its status.
 */
@Injectable()
export class ConsoleResponses {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: ConsoleSessions,
  ) {}

  async signedIn(
    request: FastifyRequest,
    reply: FastifyReply,
    run: (csrfToken: string) => Promise<void> | void,
  ): Promise<void> {
    await this.guarded(request, reply, async () => {
      const session = request.method === 'POST' ? this.sessions.checkCsrf(request) : this.sessions.read(request);
      if (!session?.signedIn) {
        if (request.method === 'POST') throw consoleErrors.formExpired();
        return seeOther(reply, '/console/sign-in');
      }
      await run(this.sessions.csrfToken(session));
    });
  }

  async guarded(request: FastifyRequest, reply: FastifyReply, run: () => Promise<void> | void): Promise<void> {
    try {
      if (!this.config.consoleEnabled) throw consoleErrors.off();
      await run();
    } catch (error) {
      if (!(error instanceof ConsolePageError)) throw error;
      sendPage(reply, error.status, errorPage(error.title, error.message));
    }
  }
}
