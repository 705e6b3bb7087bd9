import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { AppView, DirectoryQueries } from '../../directory/index';
import { CLOCK, Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/commands/command-executor';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { sha256Hex } from '../../platform/security/constant-time';
import { authorizationCodeDecider } from '../domain/authorization-code.decider';
import {
  authorizeErrors,
  checkRequestedScopes,
  grantScopesForTier,
  isRegisteredRedirectUri,
} from '../domain/authorize-request';
import { installDecider } from '../domain/install.decider';
import { authorizationCodeStream, installStream } from '../domain/oauth-events';
import { checkPkceRequest } from '../domain/pkce';
import { newAuthorizationCode, newInstallId } from './token-material';

export interface AuthorizeQuery {
  clientId?: string;
  redirectUri?: string;
  /** HubSpot's `scope` or the description's `scopes`, whichever was given. */
  scope?: string;
  optionalScope?: string;
}

export interface ApproveInstallInput {
  clientId: string;
  redirectUri: string;
  hubId: number;
  userId: number;
  requestedScopes: string[];
  requestedOptionalScopes: string[];
  codeChallenge?: string;
  /** Required with a challenge, and only S256 (the shared rule in domain/pkce.ts). */
  codeChallengeMethod?: string;
}

/**
 * The install flow's commands, shared by the HTML page and the programmatic admin install:
 * check an authorize request, then record an approval (AppInstalled the first time, and an
 * authorization code bound to client, redirect URI, account, user, scopes and PKCE challenge).
 */
@Injectable()
export class InstallService {
  constructor(
    private readonly directory: DirectoryQueries,
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Client and redirect URI first (an error page that never redirects), then the scopes.
   * Throws a HubSpotError whose message can be shown to a person.
   */
  validateAuthorizeRequest(q: AuthorizeQuery): { app: AppView; requiredScopes: string[]; optionalScopes: string[] } {
    if (!q.clientId) throw authorizeErrors.missingClientId();
    const found = this.directory.findAppByClientId(q.clientId);
    if (!found) throw authorizeErrors.unknownClient();
    // Never hand the secret's hash further than this service.
    const { clientSecretHash: _hash, ...app } = found;
    if (!q.redirectUri) throw authorizeErrors.missingRedirectUri();
    if (!isRegisteredRedirectUri(app, q.redirectUri)) throw authorizeErrors.unregisteredRedirectUri();
    const { requiredScopes, optionalScopes } = checkRequestedScopes(app, q.scope, q.optionalScope);
    return { app, requiredScopes, optionalScopes };
  }

  async approveInstall(
    input: ApproveInstallInput,
    ctx: CommandContext,
  ): Promise<{ code: string; grantedScopes: string[] }> {
    const { app, requiredScopes, optionalScopes } = this.validateAuthorizeRequest({
      clientId: input.clientId,
      redirectUri: input.redirectUri,
      scope: input.requestedScopes.join(' '),
      optionalScope: input.requestedOptionalScopes.join(' '),
    });
    const account = this.directory.getAccount(input.hubId);
    if (!account) {
      throw HubSpotError.validation(`No account with hubId ${input.hubId}.`, [
        { message: `No account with hubId ${input.hubId}`, in: 'hubId', code: 'INVALID' },
      ]);
    }
    const user = this.directory.getUser(input.userId);
    if (!user || !user.hubIds.includes(input.hubId)) {
      throw HubSpotError.validation(`The user ${input.userId} is not a user of account ${input.hubId}.`, [
        { message: 'the user does not belong to this account', in: 'userId', code: 'INVALID' },
      ]);
    }
    const codeChallenge = this.checkChallenge(input.codeChallenge, input.codeChallengeMethod);
    const scopes = grantScopesForTier(account.tier, requiredScopes, optionalScopes);
    const now = this.clock.now();

    const install = await this.executor.execute(
      installStream(app.appId, input.hubId),
      installDecider,
      (s) =>
        installDecider.decide(
          {
            kind: 'RecordApproval',
            appId: app.appId,
            hubId: input.hubId,
            userId: input.userId,
            scopes,
            newInstallId: newInstallId(),
            now,
          },
          s,
        ),
      ctx,
    );
    if (install.state.status !== 'installed') throw new Error('install stream did not end installed');

    const code = newAuthorizationCode(account.hublet);
    const codeHash = sha256Hex(code);
    const issued = await this.executor.execute(
      authorizationCodeStream(codeHash),
      authorizationCodeDecider,
      (s) =>
        authorizationCodeDecider.decide(
          {
            kind: 'IssueAuthorizationCode',
            grant: {
              codeHash,
              appId: app.appId,
              clientId: app.clientId,
              hubId: input.hubId,
              userId: input.userId,
              installId: install.state.status === 'installed' ? install.state.installId : '',
              installingUserId: install.state.status === 'installed' ? install.state.installingUserId : input.userId,
              hublet: account.hublet,
              redirectUri: input.redirectUri,
              scopes,
              codeChallenge,
              issuedAt: now,
              expiresAt: now + this.config.authCodeTtlSeconds * 1000,
            },
          },
          s,
        ),
      ctx,
    );
    // Other modules (Cards) read installs right after an approval: answer once the read models hold it.
    await this.runner.waitFor(Math.max(install.position, issued.position));
    return { code, grantedScopes: scopes };
  }

  /** Uninstall: AppUninstalled; the install's refresh tokens and unredeemed codes stop working. */
  async uninstall(appId: number, hubId: number, ctx: CommandContext): Promise<void> {
    const result = await this.executor.execute(
      installStream(appId, hubId),
      installDecider,
      (s) => installDecider.decide({ kind: 'Uninstall', appId, hubId, now: this.clock.now() }, s),
      ctx,
    );
    await this.runner.waitFor(result.position);
  }

  /** Errors name the programmatic install's fields: the page checked the same rule before. */
  private checkChallenge(challenge: string | undefined, method: string | undefined): string | null {
    const result = checkPkceRequest(challenge, method);
    if (result.ok) return result.challenge;
    const { param, code, message } = result.problem;
    const field = param === 'challenge' ? 'codeChallenge' : 'codeChallengeMethod';
    throw HubSpotError.validation(message, [{ message, in: field, code }]);
  }
}
