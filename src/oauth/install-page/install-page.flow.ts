import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AccountView, DirectoryQueries, UserView } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { tierAllowsScope } from '../../platform/scopes/scope-catalog';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../platform/security/password-hash';
import { AuthorizeRequestValidator, type ValidAuthorizeRequest } from '../application/authorize-request.validator';
import { ApproveInstall } from '../application/commands/approve-install';
import { redirectWithParams } from '../domain/redirect-url';
import {
  AuthorizationRequest,
  authorizationRequestFromQuery,
  authorizePath,
  checkPkce,
  decodeAuthorizationRequest,
  encodeAuthorizationRequest,
} from './authorization-request';
import type { InstallPageStep } from './install-page-step';
import { CANNOT_CONNECT, PageError, parsePortalId } from './page-error';
import { SignInThrottle } from './sign-in-throttle';
import { CodeIssuanceLimit } from './code-issuance-limit';

/** A submitted form of the page, its CSRF token already checked. */
export type PageForm = Record<string, unknown>;

/** The authorization request as the client sent it, and what the app's settings make of it. */
export interface CheckedRequest {
  pending: AuthorizationRequest;
  validated: ValidAuthorizeRequest;
}

/**
 * HubSpot's install flow: sign-in → account chooser → consent → redirect with a code. Each method
 * answers one request of the page with the next step; a failure is a PageError. The client and
 * redirect URI are checked before anything else, and every POST re-validates the whole
 * authorization request (the hidden field is user input like any other).
 */
@Injectable()
export class InstallPageFlow {
  constructor(
    private readonly signInThrottle: SignInThrottle,
    private readonly codeIssuance: CodeIssuanceLimit,
    private readonly validator: AuthorizeRequestValidator,
    private readonly directory: DirectoryQueries,
    private readonly commandBus: CommandBus,
  ) {}

  /** The authorize URL's query, parsed and checked. */
  requestFromQuery(query: unknown): CheckedRequest {
    const parsed = authorizationRequestFromQuery(query);
    if (!parsed.ok) throw new PageError(400, CANNOT_CONNECT, parsed.message);
    return { pending: parsed.request, validated: this.validate(parsed.request) };
  }

  /** GET: sign-in when there is no session, then the account chooser, then consent. */
  pageFor({ pending, validated }: CheckedRequest, sessionUserId: unknown, portalId?: number): InstallPageStep {
    const appName = validated.app.name;
    const request = encodeAuthorizationRequest(pending);
    const user = this.signedInUser(sessionUserId);
    if (!user) return { kind: 'sign-in', status: 200, view: { appName, request, portalId } };
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
      return {
        kind: 'choose-account',
        view: {
          appName,
          email: user.email,
          accounts: accounts.map((a) => ({ hubId: a.hubId, domain: a.domain, tier: a.tier })),
          request,
          notice:
            portalId === undefined
              ? undefined
              : `You don't have access to the account with Hub ID ${portalId}. Choose one of your accounts.`,
        },
      };
    }
    const unusable = validated.requiredScopes.filter((s) => !tierAllowsScope(chosen.tier, s));
    if (unusable.length > 0) {
      throw new PageError(
        403,
        'This account cannot use this app',
        `${appName} needs ${unusable.join(', ')}, which the ${chosen.tier} subscription of ${chosen.domain} does not include.`,
      );
    }
    return {
      kind: 'consent',
      view: {
        appName,
        email: user.email,
        account: { hubId: chosen.hubId, domain: chosen.domain, tier: chosen.tier },
        requiredScopes: validated.requiredScopes,
        optionalScopes: validated.optionalScopes.filter((s) => tierAllowsScope(chosen.tier, s)),
        unavailableScopes: validated.optionalScopes.filter((s) => !tierAllowsScope(chosen.tier, s)),
        redirectOrigin: originOf(pending.redirectUri!),
        request,
        chooseAnotherHref: authorizePath(pending),
      },
    };
  }

  /** The sign-in form: throttled per e-mail and address; one password check, even for unknown e-mails. */
  async signIn(form: PageForm, address: string): Promise<InstallPageStep> {
    const pending = pendingFrom(form);
    const validated = this.validate(pending);
    const portalId =
      form.portal_id === undefined || form.portal_id === '' ? undefined : parsePortalId(form.portal_id, 400);
    const email = typeof form.email === 'string' ? form.email.slice(0, 320) : '';
    const password = typeof form.password === 'string' ? form.password.slice(0, 1024) : '';
    const signInAgain = (status: 401 | 429 | 503, error: string, retryAfterSeconds?: number): InstallPageStep => ({
      kind: 'sign-in',
      status,
      view: { appName: validated.app.name, request: encodeAuthorizationRequest(pending), portalId, email, error },
      retryAfterSeconds,
    });
    const gate = await this.signInThrottle.reserve(email, address);
    if (!gate.allowed) {
      if ('busy' in gate) {
        return signInAgain(503, 'Too many sign-ins are being checked right now. Try again in a few seconds.', 5);
      }
      if ('unavailable' in gate) {
        // The shared counter store cannot be reached: no password check goes uncounted.
        return signInAgain(503, 'Sign-in is unavailable for a moment. Try again in a few seconds.', 5);
      }
      const minutes = Math.max(1, Math.ceil(gate.retryAfterMs / 60_000));
      return signInAgain(
        429,
        `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        Math.ceil(gate.retryAfterMs / 1000),
      );
    }
    let passwordOk = false;
    let credentials: ReturnType<DirectoryQueries['findUserCredentialsByEmail']> = null;
    try {
      credentials = email ? this.directory.findUserCredentialsByEmail(email) : null;
      // Always one scrypt check, also for unknown e-mails: the time taken says nothing about who exists.
      passwordOk = await this.signInThrottle.limitConcurrency(() =>
        verifyPassword(password, credentials?.passwordHash ?? DUMMY_PASSWORD_HASH),
      );
    } finally {
      // Settled once, whatever happened: an error counts as a failure, never as a free attempt.
      if (credentials && passwordOk && password.length > 0) await gate.attempt.succeeded();
      else await gate.attempt.failed();
    }
    if (!credentials || !passwordOk || password.length === 0) {
      return signInAgain(401, 'That e-mail address and password do not match a user. Check both and try again.');
    }
    // A fresh session (and CSRF secret) at sign-in: nothing chosen before it carries over.
    return { kind: 'start-session', userId: credentials.userId, next: authorizePath(pending, portalId) };
  }

  signOut(form: PageForm): InstallPageStep {
    return { kind: 'end-session', next: authorizePath(pendingFrom(form)) };
  }

  chooseAccount(form: PageForm): InstallPageStep {
    const pending = pendingFrom(form);
    this.validate(pending);
    // Membership is checked by the consent step it leads to; here only the shape.
    return { kind: 'next-step', location: authorizePath(pending, parsePortalId(form.hub_id, 400)) };
  }

  /** Consent given or refused: back to the app with a code (ApproveInstall) or access_denied. */
  async decide(form: PageForm, sessionUserId: unknown, correlationId: string): Promise<InstallPageStep> {
    const pending = pendingFrom(form);
    const validated = this.validate(pending);
    const hubId = parsePortalId(form.hub_id, 400);
    const user = this.signedInUser(sessionUserId);
    // Session ended between consent and decision: start the steps again, nothing granted.
    if (!user) return { kind: 'next-step', location: authorizePath(pending, hubId) };
    const account = user.hubIds.includes(hubId) ? this.directory.getAccount(hubId) : null;
    if (!account) {
      throw new PageError(403, 'No access to this account', `You are not a user of the account with Hub ID ${hubId}.`);
    }
    const redirectUri = pending.redirectUri!;
    if (form.decision === 'deny') {
      return {
        kind: 'return-to-app',
        location: redirectWithParams(redirectUri, { error: 'access_denied', state: pending.state }),
      };
    }
    if (form.decision !== 'approve') throw new PageError(400, CANNOT_CONNECT, 'Choose Connect app or Cancel.');
    const gate = await this.codeIssuance.tryAcquire(user.userId, validated.app.appId, hubId);
    if (!gate.allowed) {
      const seconds = Math.max(1, Math.ceil(gate.retryAfterMs / 1000));
      throw new PageError(
        429,
        'Too many installs',
        `You have connected apps too many times in a short while. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        seconds,
      );
    }
    const context: CommandContext = { correlationId, causationId: null, actor: `user:${user.userId}` };
    const code = await this.approve({ pending, validated }, account, user, context);
    return { kind: 'return-to-app', location: redirectWithParams(redirectUri, { code, state: pending.state }) };
  }

  /** AppInstalled (first time) and AuthorizationCodeIssued through ApproveInstall; returns the plain code. */
  private async approve(
    { pending, validated }: CheckedRequest,
    account: AccountView,
    user: UserView,
    context: CommandContext,
  ): Promise<string> {
    try {
      const { code } = await this.commandBus.execute(
        new ApproveInstall(
          {
            clientId: validated.app.clientId,
            redirectUri: pending.redirectUri!,
            hubId: account.hubId,
            userId: user.userId,
            requestedScopes: validated.requiredScopes,
            // What the consent page showed: optional scopes the tier can use.
            requestedOptionalScopes: validated.optionalScopes.filter((s) => tierAllowsScope(account.tier, s)),
            // As the client sent them: ApproveInstall applies the same PKCE rule again.
            ...(pending.codeChallenge !== undefined ? { codeChallenge: pending.codeChallenge } : {}),
            ...(pending.codeChallengeMethod !== undefined ? { codeChallengeMethod: pending.codeChallengeMethod } : {}),
          },
          context,
        ),
      );
      return code;
    } catch (error) {
      // e.g. a required scope the account's tier cannot use: explained on a page, not a JSON body.
      if (error instanceof HubSpotError) throw new PageError(400, CANNOT_CONNECT, error.message);
      throw error;
    }
  }

  /** Client, redirect URI, scopes (AuthorizeRequestValidator's rules), then PKCE. Any failure is an error page. */
  private validate(pending: AuthorizationRequest): ValidAuthorizeRequest {
    let validated: ValidAuthorizeRequest;
    try {
      validated = this.validator.validate({
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

  private signedInUser(sessionUserId: unknown): UserView | null {
    return typeof sessionUserId === 'number' ? this.directory.getUser(sessionUserId) : null;
  }
}

/** The authorization request the form carried back in its hidden field. */
function pendingFrom(form: PageForm): AuthorizationRequest {
  const decoded = decodeAuthorizationRequest(form.request);
  if (!decoded.ok) throw new PageError(400, CANNOT_CONNECT, decoded.message);
  return decoded.request;
}

function originOf(uri: string): string {
  try {
    return new URL(uri).origin;
  } catch {
    return uri;
  }
}
