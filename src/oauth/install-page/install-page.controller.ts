import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  ApiExcludeEndpoint,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csrfTokenIsValid } from './install-page-session';
import type { InstallPageStep } from './install-page-step';
import { InstallPageFlow, type PageForm } from './install-page.flow';
import { PageError, parsePortalId } from './page-error';
import { SessionGenerations } from './session-generations';
import { found, seeOther, sendHtml } from './page-responses';
import { renderAccountChooserPage } from './views/account-chooser.view';
import { renderConsentPage } from './views/consent.view';
import { renderErrorPage } from './views/error.view';
import { renderSignInPage } from './views/sign-in.view';

/**
 * HubSpot's install (authorize) page over HTTP. InstallPageFlow decides each next step; this
 * controller checks every POST's CSRF token against the session, keeps the session, and turns
 * steps into pages and redirects (a PageError into the HTML error page, never a redirect).
 */
@ApiTags('OAuth install page')
@Controller('oauth')
export class InstallPageController {
  constructor(
    private readonly flow: InstallPageFlow,
    private readonly adapterHost: HttpAdapterHost,
    private readonly generations: SessionGenerations,
  ) {}

  @Get('authorize')
  @ApiOperation({
    summary: 'Install page (HTML): sign-in, account choice, consent, then a redirect with code and state',
  })
  @ApiProduces('text/html')
  @ApiQuery({ name: 'client_id', required: true })
  @ApiQuery({ name: 'redirect_uri', required: true, description: 'Exactly one of the app’s registered redirect URLs' })
  @ApiQuery({
    name: 'scope',
    required: true,
    description: 'Space-separated; every required scope of the app (alias: scopes)',
  })
  @ApiQuery({ name: 'optional_scope', required: false, description: 'Space-separated (alias: optional_scopes)' })
  @ApiQuery({ name: 'state', required: false, description: 'Returned byte for byte on the redirect' })
  @ApiQuery({ name: 'code_challenge', required: false })
  @ApiQuery({ name: 'code_challenge_method', required: false, enum: ['S256'] })
  @ApiResponse({ status: 200, description: 'Sign-in, account chooser or consent page' })
  @ApiResponse({
    status: 400,
    description: 'Error page: unknown client, unregistered redirect URI, bad scopes — never redirects',
  })
  async authorize(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, () => this.show(request, reply, undefined));
  }

  @Get(':portalId/authorize')
  @ApiOperation({ summary: 'Install page with the account preselected (when the user belongs to it)' })
  @ApiParam({ name: 'portalId', description: 'Hub ID to preselect' })
  @ApiProduces('text/html')
  async authorizeForPortal(
    @Param('portalId') portalId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.answer(request, reply, () => this.show(request, reply, parsePortalId(portalId, 404)));
  }

  @Post('authorize/sign-in')
  @ApiExcludeEndpoint()
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const form = await this.checkedForm(request);
      this.render(request, reply, await this.flow.signIn(form, request.ip));
    });
  }

  @Post('authorize/sign-out')
  @ApiExcludeEndpoint()
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const form = await this.checkedForm(request);
      // Server side: every session of this user ends, a copy of this cookie included.
      const userId = this.sessionUser(request);
      if (userId !== undefined) this.generations.endAll(userId);
      this.render(request, reply, this.flow.signOut(form));
    });
  }

  @Post('authorize/account')
  @ApiExcludeEndpoint()
  async chooseAccount(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const form = await this.checkedForm(request);
      this.render(request, reply, this.flow.chooseAccount(form));
    });
  }

  @Post('authorize/decision')
  @ApiExcludeEndpoint()
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const form = await this.checkedForm(request);
      this.render(request, reply, await this.flow.decide(form, this.sessionUser(request), String(request.id)));
    });
  }

  private show(request: FastifyRequest, reply: FastifyReply, portalId: number | undefined): void {
    const checked = this.flow.requestFromQuery(request.query);
    // The session gets its CSRF secret as soon as the request checks out, whichever step follows.
    const csrfToken = reply.generateCsrf();
    this.render(request, reply, this.flow.pageFor(checked, this.sessionUser(request), portalId), csrfToken);
  }

  /** The signed-in user of the session, unless that user signed out since (SessionGenerations). */
  private sessionUser(request: FastifyRequest): number | undefined {
    return this.generations.signedInUser(request.session.get('userId'), request.session.get('generation'));
  }

  /** A step as a page (with the session's CSRF token) or a redirect. */
  private render(request: FastifyRequest, reply: FastifyReply, step: InstallPageStep, csrfToken?: string): void {
    const csrf = () => csrfToken ?? reply.generateCsrf();
    switch (step.kind) {
      case 'sign-in':
        if (step.retryAfterSeconds !== undefined) void reply.header('retry-after', String(step.retryAfterSeconds));
        return sendHtml(reply, step.status, renderSignInPage({ ...step.view, csrfToken: csrf() }));
      case 'choose-account':
        return sendHtml(reply, 200, renderAccountChooserPage({ ...step.view, csrfToken: csrf() }));
      case 'consent':
        return sendHtml(reply, 200, renderConsentPage({ ...step.view, csrfToken: csrf() }));
      case 'start-session':
        request.session.regenerate();
        request.session.set('userId', step.userId);
        request.session.set('generation', this.generations.current(step.userId));
        return seeOther(reply, step.next);
      case 'end-session':
        request.session.delete();
        return seeOther(reply, step.next);
      case 'next-step':
        return seeOther(reply, step.location);
      case 'return-to-app':
        return found(reply, step.location);
    }
  }

  /** The form body, once its CSRF token matched the session's secret (else the 403 page). */
  private async checkedForm(request: FastifyRequest): Promise<PageForm> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    if (!(await csrfTokenIsValid(fastify, request))) {
      throw new PageError(
        403,
        'This form has expired',
        'The form was not sent from this page, or your session ended. Go back to the app and start the installation again.',
      );
    }
    const body = request.body;
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as PageForm) : {};
  }

  /** Runs a step; a PageError becomes the HTML error page, anything else goes to the global filter. */
  private async answer(request: FastifyRequest, reply: FastifyReply, step: () => void | Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (!(error instanceof PageError)) throw error;
      if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
      sendHtml(
        reply,
        error.status,
        renderErrorPage({ title: error.title, message: error.message, correlationId: String(request.id) }),
      );
    }
  }
}
