import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

  @Post('sign-in')
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.guarded(request, reply, () => {
      const session = this.sessions.checkCsrf(request);
      try {
        this.sessions.signIn(request, reply, text(request.body, 'adminKey') ?? '');
      } catch (error) {
        if (!(error instanceof ConsolePageError) || error.status !== 401) throw error;
        return sendPage(reply, 401, signInPage(this.sessions.csrfToken(session), error.message));
      }
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
