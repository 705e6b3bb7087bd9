import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { ConcurrencyConflictError } from '../../../platform/commands/concurrency-conflict-error';
import { EventStreams } from '../../../platform/commands/event-streams';
import { retryOnConflict, type RetryPolicy } from '../../../platform/commands/retry-policy';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { ConcurrencyError } from '../../../platform/event-store/concurrency-error';
import type { ExpectedRevision } from '../../../platform/event-store/event-store.port';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { sha256Hex } from '../../../platform/security/constant-time';
import {
  authorizationCodeDecider,
  AuthorizationCodeReplayed,
  type CodeGrant,
} from '../../domain/authorization-code.decider';
import { installDecider, installIsActive } from '../../domain/install.decider';
import {
  type AuthorizationCodeEvent,
  authorizationCodeStream,
  installStream,
  refreshTokenStream,
} from '../../domain/oauth-events';
import { oauthError } from '../../domain/oauth-errors';
import { type RefreshGrant, refreshTokenDecider } from '../../domain/refresh-token.decider';
import type { AuthenticatedClient } from '../client-authentication';
import { newRefreshToken } from '../token-material';
import { InstallClocks } from '../install-clocks';
import { IssueToken, type TokenResponse } from './issue-token';
import { RevokeRefreshToken } from './revoke-refresh-token';

/** The authorization_code grant. */
export class RedeemAuthorizationCode extends Command<TokenResponse> {
  constructor(
    readonly client: AuthenticatedClient,
    readonly code: string,
    readonly redirectUri: string,
    readonly codeVerifier: string | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** How many times a redemption is decided again after losing a race on the code's stream. */
const REDEMPTION_RETRY: RetryPolicy = { maxAttempts: 3 };

interface StoredRefreshToken {
  grant: RefreshGrant;
  /** The plain token: handed out once, in this redemption's answer. */
  refreshToken: string;
}

/** Step 1's outcome: the code's grant and the decided redemption, not stored yet. */
interface Redemption {
  code: CodeGrant;
  /** The code stream's revision the redemption was decided on. */
  expected: ExpectedRevision;
  redeemed: AuthorizationCodeEvent[];
  refreshToken: string;
  refreshTokenHash: string;
}

/** The refresh token a redemption hands out: the code's binding, issued now. */
function refreshTokenFrom({ code, refreshToken, refreshTokenHash }: Redemption, now: number): StoredRefreshToken {
  const grant: RefreshGrant = {
    refreshTokenHash,
    codeHash: code.codeHash,
    appId: code.appId,
    clientId: code.clientId,
    hubId: code.hubId,
    userId: code.userId,
    installId: code.installId,
    installingUserId: code.installingUserId,
    hublet: code.hublet,
    scopes: code.scopes,
    issuedAt: now,
  };
  return { grant, refreshToken };
}

/**
 * Code redemption, a process across the code's, the install's and a new refresh token's streams.
 * Neither it nor IssueToken waits for projections: the answer comes from the write side only.
 *
 *  1. decide the redemption on the code's stream;
 *  2. check that the install the code was issued for is still the current one;
 *  3. store the refresh token, then mark the code redeemed, in that order (a replay that sees the
 *     code redeemed then always finds the refresh token to revoke). Single use is the code
 *     stream's expected revision: of two concurrent redemptions exactly one append succeeds;
 *  4. IssueToken.
 * Lost the race at 3: the refresh token just stored was never handed out, so it is revoked
 * (`not_delivered`) and 1-3 run again, which now finds a replay.
 * A replay (RFC 6749 §4.1.2): the refresh token the code gave out is revoked before the answer.
 */
@CommandHandler(RedeemAuthorizationCode)
export class RedeemAuthorizationCodeProcess implements ICommandHandler<RedeemAuthorizationCode> {
  constructor(
    private readonly streams: EventStreams,
    private readonly commandBus: CommandBus,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly installClocks: InstallClocks,
  ) {}

  async execute(command: RedeemAuthorizationCode): Promise<TokenResponse> {
    let stored: StoredRefreshToken;
    try {
      stored = await this.redeemSingleUse(command);
    } catch (error) {
      if (error instanceof AuthorizationCodeReplayed)
        await this.revokeRefreshTokenOfReplayedCode(error, command.context);
      if (error instanceof ConcurrencyConflictError) {
        throw HubSpotError.conflict('The authorization code was used by another request at the same time.');
      }
      throw error;
    }
    return this.commandBus.execute(
      new IssueToken(stored.grant, stored.refreshToken, 'authorization_code', command.context),
    );
  }

  /** Steps 1-3, decided again while the code's stream moved on under them. */
  private redeemSingleUse(command: RedeemAuthorizationCode): Promise<StoredRefreshToken> {
    const codeStreamId = authorizationCodeStream(sha256Hex(command.code));
    // The refresh token of the running attempt, from just before it is stored until the code is marked.
    let inFlight: StoredRefreshToken | null = null;
    return retryOnConflict(
      codeStreamId,
      REDEMPTION_RETRY,
      async () => {
        inFlight = null;
        const now = this.clock.now();
        const redemption = await this.decideRedemption(codeStreamId, command, now);
        await this.checkInstallStillActive(redemption.code);
        const refreshToken = refreshTokenFrom(redemption, now);
        inFlight = refreshToken;
        await this.storeRefreshTokenThenMarkCodeRedeemed(codeStreamId, redemption, refreshToken.grant, command.context);
        return refreshToken;
      },
      (_n, error) => this.revokeUndeliveredRefreshToken(inFlight, codeStreamId, error, command.context),
    );
  }

  /** 1. The code's decider redeems it for a fresh refresh token, or refuses (a replay among the refusals). */
  private async decideRedemption(
    codeStreamId: string,
    command: RedeemAuthorizationCode,
    now: number,
  ): Promise<Redemption> {
    const code = await this.streams.load(codeStreamId, authorizationCodeDecider);
    // Decide refuses every code that is not issued: the token is only made for one that is.
    const refreshToken = code.state.status === 'issued' ? newRefreshToken(code.state.grant.hublet) : '';
    const refreshTokenHash = sha256Hex(refreshToken);
    const redeemed = authorizationCodeDecider.decide(
      {
        kind: 'RedeemAuthorizationCode',
        clientId: command.client.clientId,
        redirectUri: command.redirectUri,
        codeVerifier: command.codeVerifier,
        refreshTokenHash,
        // The code expires by its install's own clock (a code that is not issued is refused anyway).
        now:
          code.state.status === 'unknown'
            ? now
            : this.installClocks.nowFor(code.state.grant.appId, code.state.grant.hubId),
      },
      code.state,
    );
    if (code.state.status !== 'issued') throw new Error('unreachable: decide accepted a code that is not issued');
    return { code: code.state.grant, expected: code.expected, redeemed, refreshToken, refreshTokenHash };
  }

  /** 2. An uninstall since the code was issued voids it. */
  private async checkInstallStillActive(code: CodeGrant): Promise<void> {
    const install = await this.streams.load(installStream(code.appId, code.hubId), installDecider);
    if (!installIsActive(install.state, code.installId)) {
      throw oauthError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code');
    }
  }

  /**
   * 3. The refresh token first (a new stream: decided on its initial state), then the code with the
   * revision it was decided on (ConcurrencyError when another redemption got there first).
   */
  private async storeRefreshTokenThenMarkCodeRedeemed(
    codeStreamId: string,
    redemption: Redemption,
    grant: RefreshGrant,
    context: CommandContext,
  ): Promise<void> {
    const issued = refreshTokenDecider.decide({ kind: 'IssueRefreshToken', grant }, refreshTokenDecider.initialState());
    await this.streams.appendInOrder(
      [
        { streamId: refreshTokenStream(grant.refreshTokenHash), events: issued, expected: 'no_stream' },
        { streamId: codeStreamId, events: redemption.redeemed, expected: redemption.expected },
      ],
      context,
    );
  }

  /** After a lost race on the code: the refresh token stored just before is never handed out. */
  private async revokeUndeliveredRefreshToken(
    attempt: StoredRefreshToken | null,
    codeStreamId: string,
    error: ConcurrencyError,
    context: CommandContext,
  ): Promise<void> {
    // Only the code's append lost: the refresh token's own append came first and was stored.
    if (attempt === null || error.streamId !== codeStreamId) return;
    await this.commandBus.execute(new RevokeRefreshToken(attempt.grant.refreshTokenHash, 'not_delivered', context));
  }

  /** The replay's effect is visible to the metadata endpoints once the refusal arrives. */
  private async revokeRefreshTokenOfReplayedCode(
    replay: AuthorizationCodeReplayed,
    context: CommandContext,
  ): Promise<void> {
    const { position } = await this.commandBus.execute(
      new RevokeRefreshToken(replay.refreshTokenHash, 'authorization_code_replayed', context),
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }
}
