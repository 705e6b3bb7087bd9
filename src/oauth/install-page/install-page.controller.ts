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
import { AccountView, DirectoryQueries, UserView } from '../../directory/index';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { tierAllowsScope } from '../../platform/scopes/scope-catalog';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../platform/security/password-hash';
import { InstallService } from '../application/install.service';
import { redirectWithParams } from '../domain/redirect-url';
import {
  AuthorizationRequest,
  authorizationRequestFromQuery,
  authorizePath,
  checkPkce,
  decodeAuthorizationRequest,
  encodeAuthorizationRequest,
} from './authorization-request';
import { csrfTokenIsValid } from './install-page-session';
import { renderAccountChooserPage } from './views/account-chooser.view';
import { renderConsentPage } from './views/consent.view';
import { renderErrorPage } from './views/error.view';
import { SignInThrottle } from './sign-in-throttle';
import { renderSignInPage } from './views/sign-in.view';

type Validated = ReturnType<InstallService['validateAuthorizeRequest']>;
type Body = Record<string, unknown>;

/** Thrown inside a handler to answer with the HTML error page (never a redirect). */
class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

const CANNOT_CONNECT = 'This app cannot be connected';

/**
 * HubSpot's install (authorize) page: sign-in → account chooser → consent → redirect with a code.
 * Client and redirect URI are checked before anything else and a failure there never redirects.
 * Every POST carries the session's CSRF token and re-validates the whole authorization request.
 */
@ApiTags('OAuth install page')
@Controller('oauth')
export class InstallPageController {
  constructor(
    private readonly signInThrottle: SignInThrottle,
    private readonly install: InstallService,
    private readonly directory: DirectoryQueries,
    private readonly adapterHost: HttpAdapterHost,
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
    await this.answer(request, reply, () => this.showStep(request, reply, undefined));
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
    await this.answer(request, reply, () => this.showStep(request, reply, parsePortalId(portalId, 404)));
  }

  @Post('authorize/sign-in')
  @ApiExcludeEndpoint()
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const body = await this.checkedForm(request);
      const pending = this.pendingFrom(body);
      const validated = this.validate(pending);
      const portalId =
        body.portal_id === undefined || body.portal_id === '' ? undefined : parsePortalId(body.portal_id, 400);
      const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
      const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
      const signInPage = (status: number, error: string) =>
        sendHtml(
          reply,
          status,
          renderSignInPage({
            appName: validated.app.name,
            csrfToken: reply.generateCsrf(),
            request: encodeAuthorizationRequest(pending),
            portalId,
            email,
            error,
          }),
        );
      const gate = this.signInThrottle.check(email, request.ip);
      if (!gate.allowed) {
        if ('busy' in gate) {
          void reply.header('retry-after', '5');
          signInPage(503, 'Too many sign-ins are being checked right now. Try again in a few seconds.');
        } else {
          const minutes = Math.max(1, Math.ceil(gate.retryAfterMs / 60_000));
          void reply.header('retry-after', String(Math.ceil(gate.retryAfterMs / 1000)));
          signInPage(429, `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
        }
        return;
      }
      const credentials = email ? this.directory.findUserCredentialsByEmail(email) : null;
      // Always one scrypt check, also for unknown e-mails: the time taken says nothing about who exists.
      const passwordOk = await this.signInThrottle.limitConcurrency(() =>
        verifyPassword(password, credentials?.passwordHash ?? DUMMY_PASSWORD_HASH),
      );
      if (!credentials || !passwordOk || password.length === 0) {
        this.signInThrottle.recordFailure(email, request.ip);
        signInPage(401, 'That e-mail address and password do not match a user. Check both and try again.');
        return;
      }
      // A fresh session (and CSRF secret) at sign-in: nothing chosen before it carries over.
      request.session.regenerate();
      request.session.set('userId', credentials.userId);
      seeOther(reply, authorizePath(pending, portalId));
    });
  }

  @Post('authorize/sign-out')
  @ApiExcludeEndpoint()
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const body = await this.checkedForm(request);
      const pending = this.pendingFrom(body);
      request.session.delete();
      seeOther(reply, authorizePath(pending));
    });
  }

  @Post('authorize/account')
  @ApiExcludeEndpoint()
  async chooseAccount(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const body = await this.checkedForm(request);
      const pending = this.pendingFrom(body);
      this.validate(pending);
      // Membership is checked by the consent step it leads to; here only the shape.
      seeOther(reply, authorizePath(pending, parsePortalId(body.hub_id, 400)));
    });
  }

  @Post('authorize/decision')
  @ApiExcludeEndpoint()
  async decide(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const body = await this.checkedForm(request);
      const pending = this.pendingFrom(body);
      const validated = this.validate(pending);
      const hubId = parsePortalId(body.hub_id, 400);
      const user = this.signedInUser(request);
      if (!user) {
        // Session ended between consent and decision: start the steps again, nothing granted.
        seeOther(reply, authorizePath(pending, hubId));
        return;
      }
      const account = this.accountOf(user, hubId);
      if (!account)
        throw new PageError(
          403,
          'No access to this account',
          `You are not a user of the account with Hub ID ${hubId}.`,
        );
      const redirectUri = pending.redirectUri!;
      if (body.decision === 'deny') {
        found(reply, redirectWithParams(redirectUri, { error: 'access_denied', state: pending.state }));
        return;
      }
      if (body.decision !== 'approve') throw new PageError(400, CANNOT_CONNECT, 'Choose Connect app or Cancel.');
      const ctx: CommandContext = {
        correlationId: String(request.id),
        causationId: null,
        actor: `user:${user.userId}`,
      };
      const code = await this.approve(pending, validated, account, user, ctx);
      found(reply, redirectWithParams(redirectUri, { code, state: pending.state }));
    });
  }

  /** AppInstalled (first time) and AuthorizationCodeIssued through the install service; returns the plain code. */
  private async approve(
    pending: AuthorizationRequest,
    validated: Validated,
    account: AccountView,
    user: UserView,
    ctx: CommandContext,
  ): Promise<string> {
    try {
      const { code } = await this.install.approveInstall(
        {
          clientId: validated.app.clientId,
          redirectUri: pending.redirectUri!,
          hubId: account.hubId,
          userId: user.userId,
          requestedScopes: validated.requiredScopes,
          // What the consent page showed: optional scopes the tier can use.
          requestedOptionalScopes: validated.optionalScopes.filter((s) => tierAllowsScope(account.tier, s)),
          // As the client sent them: the install service applies the same PKCE rule again.
          ...(pending.codeChallenge !== undefined ? { codeChallenge: pending.codeChallenge } : {}),
          ...(pending.codeChallengeMethod !== undefined ? { codeChallengeMethod: pending.codeChallengeMethod } : {}),
        },
        ctx,
      );
      return code;
    } catch (error) {
      // e.g. a required scope the account's tier cannot use: explained on a page, not a JSON body.
      if (error instanceof HubSpotError) throw new PageError(400, CANNOT_CONNECT, error.message);
      throw error;
    }
  }

  /** GET steps: sign-in when there is no session, then the account chooser, then consent. */
  private showStep(request: FastifyRequest, reply: FastifyReply, portalId: number | undefined): void {
    const parsed = authorizationRequestFromQuery(request.query);
    if (!parsed.ok) throw new PageError(400, CANNOT_CONNECT, parsed.message);
    const pending = parsed.request;
    const validated = this.validate(pending);
    const csrfToken = reply.generateCsrf();
    const encoded = encodeAuthorizationRequest(pending);
    const user = this.signedInUser(request);
    if (!user) {
      sendHtml(reply, 200, renderSignInPage({ appName: validated.app.name, csrfToken, request: encoded, portalId }));
      return;
    }
    const accounts = user.hubIds.map((id) => this.directory.getAccount(id)).filter((a): a is AccountView => a !== null);
    if (accounts.length === 0) {
      throw new PageError(
        403,
        'No account to connect',
        'Your user does not belong to any HubSpot account, so there is nothing to connect the app to.',
      );
    }
    const chosen = portalId === undefined ? undefined : accounts.find((a) => a.hubId === portalId);
    if (!chosen) {
      sendHtml(
        reply,
        200,
        renderAccountChooserPage({
          appName: validated.app.name,
          email: user.email,
          accounts: accounts.map((a) => ({ hubId: a.hubId, domain: a.domain, tier: a.tier })),
          csrfToken,
          request: encoded,
          notice:
            portalId === undefined
              ? undefined
              : `You don't have access to the account with Hub ID ${portalId}. Choose one of your accounts.`,
        }),
      );
      return;
    }
    const unusable = validated.requiredScopes.filter((s) => !tierAllowsScope(chosen.tier, s));
    if (unusable.length > 0) {
      throw new PageError(
        403,
        'This account cannot use this app',
        `${validated.app.name} needs ${unusable.join(', ')}, which the ${chosen.tier} subscription of ${chosen.domain} does not include.`,
      );
    }
    sendHtml(
      reply,
      200,
      renderConsentPage({
        appName: validated.app.name,
        email: user.email,
        account: { hubId: chosen.hubId, domain: chosen.domain, tier: chosen.tier },
        requiredScopes: validated.requiredScopes,
        optionalScopes: validated.optionalScopes.filter((s) => tierAllowsScope(chosen.tier, s)),
        unavailableScopes: validated.optionalScopes.filter((s) => !tierAllowsScope(chosen.tier, s)),
        redirectOrigin: originOf(pending.redirectUri!),
        csrfToken,
        request: encoded,
        chooseAnotherHref: authorizePath(pending),
      }),
    );
  }

  /** Client, redirect URI, scopes (the install service's rules), then PKCE. Any failure is an error page. */
  private validate(pending: AuthorizationRequest): Validated {
    let validated: Validated;
    try {
      validated = this.install.validateAuthorizeRequest({
        clientId: pending.clientId,
        redirectUri: pending.redirectUri,
        scope: pending.scope,
        optionalScope: pending.optionalScope,
      });
    } catch (error) {
      if (error instanceof HubSpotError) throw new PageError(400, CANNOT_CONNECT, error.message);
      throw error;
    }
    const pkceProblem = checkPkce(pending);
    if (pkceProblem) throw new PageError(400, CANNOT_CONNECT, pkceProblem);
    return validated;
  }

  private async checkedForm(request: FastifyRequest): Promise<Body> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    if (!(await csrfTokenIsValid(fastify, request))) {
      throw new PageError(
        403,
        'This form has expired',
        'The form was not sent from this page, or your session ended. Go back to the app and start the installation again.',
      );
    }
    const body = request.body;
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
  }

  private pendingFrom(body: Body): AuthorizationRequest {
    const decoded = decodeAuthorizationRequest(body.request);
    if (!decoded.ok) throw new PageError(400, CANNOT_CONNECT, decoded.message);
    return decoded.request;
  }

  private signedInUser(request: FastifyRequest): UserView | null {
    const userId = request.session.get('userId');
    return typeof userId === 'number' ? this.directory.getUser(userId) : null;
  }

  private accountOf(user: UserView, hubId: number): AccountView | null {
    return user.hubIds.includes(hubId) ? this.directory.getAccount(hubId) : null;
  }

  /** Runs a step; a PageError becomes the HTML error page, anything else goes to the global filter. */
  private async answer(request: FastifyRequest, reply: FastifyReply, step: () => void | Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (!(error instanceof PageError)) throw error;
      sendHtml(
        reply,
        error.status,
        renderErrorPage({ title: error.title, message: error.message, correlationId: String(request.id) }),
      );
    }
  }
}

function parsePortalId(raw: unknown, status: number): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new PageError(
      status,
      status === 404 ? 'Page not found' : CANNOT_CONNECT,
      'The account id must be a Hub ID (a positive number).',
    );
  }
  return Number(raw);
}

function originOf(uri: string): string {
  try {
    return new URL(uri).origin;
  } catch {
    return uri;
  }
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/**
 * The pages need no script, so their policy is stricter than the global one: nothing but inline
 * style, forms only to this origin (and, after approval, the app's http(s) redirect URI), never
 * framed. No `upgrade-insecure-requests`: it would turn the page's own form posts into https on
 * a plain-http demo host.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self' http: https:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function sendHtml(reply: FastifyReply, status: number, body: string): void {
  void noStore(reply)
    .status(status)
    .header('content-security-policy', PAGE_CSP)
    .header('content-type', 'text/html; charset=utf-8')
    .send(body);
}

/** After a form POST that only moves between steps: 303 makes the browser GET the next step. */
function seeOther(reply: FastifyReply, location: string): void {
  void noStore(reply).status(303).header('location', location).send();
}

/** The final redirect to the app, as HubSpot does it: 302. */
function found(reply: FastifyReply, location: string): void {
  void noStore(reply).status(302).header('location', location).send();
}
