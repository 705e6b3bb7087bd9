import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../../directory/directory.queries';
import { CLOCK, type Clock, InstallClocks } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { sha256Hex } from '../../../platform/security/crypto';
import { authorizationCodeDecider } from '../../domain/authorization-code.decider';
import { grantScopesForTier } from '../../domain/authorize-request';
import { installDecider } from '../../domain/install.decider';
import { authorizationCodeStream, installStream } from '../../domain/oauth-events';
import { checkPkceRequest } from '../../domain/pkce';
import { AuthorizeRequestValidator } from '../authorize-request.validator';
import { newAuthorizationCode, newInstallId } from '../token-material';

export interface InstallApproval {
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

export interface ApprovedInstall {
  /** The plain authorization code for the redirect. */
  code: string;
  grantedScopes: string[];
}

/**
 * A user approved an app in an account, on the install page or through the admin API: the same
 * command and events either way.
 */
export class ApproveInstall extends Command<ApprovedInstall> {
  constructor(
    readonly approval: InstallApproval,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * A process across the install's stream and a new code's: checks the request again (client, redirect
 * URI, scopes, account, user, PKCE), records the approval on the install's stream (AppInstalled the
 * first time, AppInstallScopesChanged when the scopes differ), then issues a fresh authorization code
 * bound to client, redirect URI, account, user, install, scopes and PKCE challenge (handed out once,
 * stored only as its hash). Answers once the read models hold both: other modules (Cards) read
 * installs right after an approval.
 */
@CommandHandler(ApproveInstall)
export class ApproveInstallHandler implements ICommandHandler<ApproveInstall> {
  private readonly installs;
  private readonly codes;

  constructor(
    streams: EventStreams,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly validator: AuthorizeRequestValidator,
    private readonly directory: DirectoryQueries,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly installClocks: InstallClocks,
  ) {
    this.installs = streams.forDecider(installDecider);
    this.codes = streams.forDecider(authorizationCodeDecider);
  }

  async execute({ approval, context }: ApproveInstall): Promise<ApprovedInstall> {
    const { app, requiredScopes, optionalScopes } = this.validator.validate({
      clientId: approval.clientId,
      redirectUri: approval.redirectUri,
      scope: approval.requestedScopes.join(' '),
      optionalScope: approval.requestedOptionalScopes.join(' '),
    });
    const account = this.directory.getAccount(approval.hubId);
    if (!account) {
      throw HubSpotError.validation(`No account with hubId ${approval.hubId}.`, [
        { message: `No account with hubId ${approval.hubId}`, in: 'hubId', code: 'INVALID' },
      ]);
    }
    const user = this.directory.getUser(approval.userId);
    if (!user || !user.hubIds.includes(approval.hubId)) {
      throw HubSpotError.validation(`The user ${approval.userId} is not a user of account ${approval.hubId}.`, [
        { message: 'the user does not belong to this account', in: 'userId', code: 'INVALID' },
      ]);
    }
    const codeChallenge = checkedChallenge(approval.codeChallenge, approval.codeChallengeMethod);
    const scopes = grantScopesForTier(account.tier, requiredScopes, optionalScopes);
    const now = this.clock.now();

    const install = await this.installs.handle(
      installStream(app.appId, approval.hubId),
      {
        type: 'RecordApproval',
        appId: app.appId,
        hubId: approval.hubId,
        userId: approval.userId,
        scopes,
        newInstallId: newInstallId(),
        now,
      },
      context,
    );
    if (install.state.status !== 'installed') throw new Error('install stream did not end installed');

    const code = newAuthorizationCode(account.hublet);
    // The code lives by its install's own clock (redeemed by it too); the approval itself is on real time.
    const codeIssuedAt = this.installClocks.nowFor(app.appId, approval.hubId);
    const clockEpoch = this.installClocks.epochOf(app.appId, approval.hubId);
    const codeHash = sha256Hex(code);
    const issued = await this.codes.handle(
      authorizationCodeStream(codeHash),
      {
        type: 'IssueAuthorizationCode',
        grant: {
          codeHash,
          appId: app.appId,
          clientId: app.clientId,
          hubId: approval.hubId,
          userId: approval.userId,
          installId: install.state.installId,
          installingUserId: install.state.installingUserId,
          hublet: account.hublet,
          redirectUri: approval.redirectUri,
          scopes,
          codeChallenge,
          issuedAt: codeIssuedAt,
          expiresAt: codeIssuedAt + this.config.authCodeTtlSeconds * 1000,
          ...(clockEpoch > 0 ? { clockEpoch } : {}),
        },
      },
      context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(Math.max(install.position, issued.position));
    return { code, grantedScopes: scopes };
  }
}

/** Errors name the programmatic install's fields: the page checked the same rule before. */
function checkedChallenge(challenge: string | undefined, method: string | undefined): string | null {
  const result = checkPkceRequest(challenge, method);
  if (result.ok) return result.challenge;
  const { param, code, message } = result.problem;
  const field = param === 'challenge' ? 'codeChallenge' : 'codeChallengeMethod';
  throw HubSpotError.validation(message, [{ message, in: field, code }]);
}
