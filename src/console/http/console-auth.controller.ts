import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleSignInThrottle } from '../application/sign-in-throttle';
import { ConsolePageError } from '../domain/console-errors';
import { text } from '../domain/form-input';
import { signInPage } from '../views/pages';
import { ConsoleResponses, seeOther, sendPage } from './console-responses';
import { ConsoleSessions } from './console-session';

/** Sign-in with the admin key (a form, then a session cookie) and sign-out. */
@ApiExcludeController()
@Controller('console')
export class ConsoleAuthController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly responses: ConsoleResponses,
    private readonly throttle: ConsoleSignInThrottle,
  ) {}

  @Get()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, () => seeOther(reply, '/console/accounts'));
  }

  @Get('sign-in')
  async signInForm(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.guarded(request, reply, () => {
      const session = this.sessions.forForms(request, reply);
      sendPage(reply, 200, signInPage(this.sessions.csrfToken(session)));
    });
  }

  /** Throttled per client address and overall before the key is compared (ConsoleSignInThrottle). */
  @Post('sign-in')
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.guarded(request, reply, async () => {
      const session = this.sessions.checkCsrf(request);
      const again = (status: number, message: string, retryAfterSeconds?: number) => {
        if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
        sendPage(reply, status, signInPage(this.sessions.csrfToken(session), message));
      };
      const presented = text(request.body, 'adminKey') ?? '';
      const gate = await this.throttle.reserve(request.ip);
      if (!gate.allowed) {
        if ('unavailable' in gate)
          return again(503, 'Sign-in is unavailable for a moment. Try again in a few seconds.', 5);
        const minutes = Math.max(1, Math.ceil(gate.retryAfterMs / 60_000));
        return again(
          429,
          `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          Math.ceil(gate.retryAfterMs / 1000),
        );
      }
      try {
        this.sessions.signIn(request, reply, presented);
      } catch (error) {
        await gate.attempt.failed();
        if (!(error instanceof ConsolePageError) || error.status !== 401) throw error;
        return again(401, error.message);
      }
      await gate.attempt.succeeded();
      seeOther(reply, '/console/accounts');
    });
  }

  @Post('sign-out')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, () => {
      this.sessions.signOut(reply);
      seeOther(reply, '/console/sign-in');
    });
  }
}
