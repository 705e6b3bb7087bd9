import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock, InstallClocks } from '../../../platform/clock';
import { ConcurrencyConflictError } from '../../../platform/commands/concurrency-conflict-error';
import { EventStreams } from '../../../platform/commands/event-streams';
import { retryOnConflict, type RetryPolicy } from '../../../platform/commands/retry-policy';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { ConcurrencyError } from '../../../platform/event-store/concurrency-error';
import type { ExpectedRevision } from '../../../platform/event-store/event-store.port';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { sha256Hex } from '../../../platform/security/crypto';
import {
  authorizationCodeDecider,
  AuthorizationCodeReplayed,
  type CodeGrant,
} from '../../domain/authorization-code.decider';
import { installDecider, installIsActive, type InstallState } from '../../domain/install.decider';
import {
  type AuthorizationCodeEvent,
  authorizationCodeStream,
  installStream,
  refreshTokenStream,
} from '../../domain/oauth-events';
import { oauthError } from '../../domain/oauth-errors';
import { type RefreshGrant, refreshTokenDecider } from '../../domain/refresh-token.decider';
import type { AuthenticatedClient } from '../oauth-form';
import { newRefreshToken } from '../token-material';
import type { RefreshTokenDeletionReason } from '../../domain/oauth-events';

/** The authorization_code grant's parameters. */
export interface CodeRedemptionRequest {
  code: string;
  redirectUri: string;
  codeVerifier: string | undefined;
}

/** How many times a redemption is decided again after losing a race on the code's stream. */
const REDEMPTION_RETRY: RetryPolicy = { maxAttempts: 3 };

interface StoredRefreshToken {
  grant: RefreshGrant;
  /** The plain token: handed out once, in this redemption's answer. */
  refreshToken: string;
}

/** A redeemed code: its refresh token, stored, and the install's state it was checked against. */
export interface RedeemedCode extends StoredRefreshToken {
  install: InstallState;
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
function refreshTokenFrom(
  { code, refreshToken, refreshTokenHash }: Redemption,
  now: number,
  install: InstallState,
): RedeemedCode {
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
  return { grant, refreshToken, install };
}

/**
 * Code redemption, the authorization_code grant's part of IssueToken's process, across the code's,
 * the install's and a new refresh token's streams. It waits for no projection.
 *
 *  1. decide the redemption on the code's stream;
 *  2. check that the install the code was issued for is still the current one;
 *  3. store the refresh token, then mark the code redeemed, in that order (a replay that sees the
 *     code redeemed then always finds the refresh token to revoke). Single use is the code
 *     stream's expected revision: of two concurrent redemptions exactly one append succeeds;
 *  4. (IssueToken) the access token.
 * Lost the race at 3: the refresh token just stored was never handed out, so it is revoked
 * (`not_delivered`) and 1-3 run again, which now finds a replay.
 * A replay (RFC 6749 §4.1.2): the refresh token the code gave out is revoked before the answer.
 */
@Injectable()
export class AuthorizationCodeRedemption {
  private readonly refreshTokens;

  constructor(
    private readonly streams: EventStreams,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly installClocks: InstallClocks,
  ) {
    this.refreshTokens = streams.forDecider(refreshTokenDecider);
  }

  /** Steps 1-3; the caller issues the access token. */
  async redeem(
    client: AuthenticatedClient,
    request: CodeRedemptionRequest,
    context: CommandContext,
  ): Promise<RedeemedCode> {
    try {
      return await this.redeemSingleUse(client, request, context);
    } catch (error) {
      if (error instanceof AuthorizationCodeReplayed) await this.revokeRefreshTokenOfReplayedCode(error, context);
      if (error instanceof ConcurrencyConflictError) {
        throw HubSpotError.conflict('The authorization code was used by another request at the same time.');
      }
      throw error;
    }
  }

  /** Steps 1-3, decided again while the code's stream moved on under them. */
  private redeemSingleUse(
    client: AuthenticatedClient,
    request: CodeRedemptionRequest,
    context: CommandContext,
  ): Promise<RedeemedCode> {
    const codeStreamId = authorizationCodeStream(sha256Hex(request.code));
    // The refresh token of the running attempt, from just before it is stored until the code is marked.
    let inFlight: StoredRefreshToken | null = null;
    return retryOnConflict(
      codeStreamId,
      REDEMPTION_RETRY,
      async () => {
        inFlight = null;
        const now = this.clock.now();
        const redemption = await this.decideRedemption(codeStreamId, client, request, now);
        const install = await this.checkInstallStillActive(redemption.code);
        const redeemed = refreshTokenFrom(redemption, now, install);
        inFlight = redeemed;
        await this.storeRefreshTokenThenMarkCodeRedeemed(codeStreamId, redemption, redeemed.grant, context);
        return redeemed;
      },
      (_n, error) => this.revokeUndeliveredRefreshToken(inFlight, codeStreamId, error, context),
    );
  }

  /** 1. The code's decider redeems it for a fresh refresh token, or refuses (a replay among the refusals). */
  private async decideRedemption(
    codeStreamId: string,
    client: AuthenticatedClient,
    request: CodeRedemptionRequest,
    now: number,
  ): Promise<Redemption> {
    const code = await this.streams.load(codeStreamId, authorizationCodeDecider);
    // Decide refuses every code that is not issued: the token is only made for one that is.
    const refreshToken = code.state.status === 'issued' ? newRefreshToken(code.state.grant.hublet) : '';
    const refreshTokenHash = sha256Hex(refreshToken);
    const redeemed = authorizationCodeDecider.decide(
      {
        type: 'RedeemAuthorizationCode',
        clientId: client.clientId,
        redirectUri: request.redirectUri,
        codeVerifier: request.codeVerifier,
        refreshTokenHash,
        // The code expires by its install's own clock (a code that is not issued is refused anyway),
        // aged by the offsets the clock's resets dropped since the code's era: the time that passed on
        // the clock that issued it stays passed (its redeemedAt is on that clock too).
        now: code.state.status === 'unknown' ? now : this.codeClockNow(code.state.grant),
      },
      code.state,
    );
    if (code.state.status !== 'issued') throw new Error('unreachable: decide accepted a code that is not issued');
    return { code: code.state.grant, expected: code.expected, redeemed, refreshToken, refreshTokenHash };
  }

  /** The time a code is judged by, on the clock (and in the era) it was issued on. */
  private codeClockNow(grant: CodeGrant): number {
    const { appId, hubId } = grant;
    return (
      this.installClocks.nowFor(appId, hubId) + this.installClocks.droppedSinceMs(appId, hubId, grant.clockEpoch ?? 0)
    );
  }

  /** 2. An uninstall since the code was issued voids it. */
  private async checkInstallStillActive(code: CodeGrant): Promise<InstallState> {
    const install = await this.streams.load(installStream(code.appId, code.hubId), installDecider);
    if (!installIsActive(install.state, code.installId)) {
      throw oauthError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code');
    }
    return install.state;
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
    const issued = refreshTokenDecider.decide({ type: 'IssueRefreshToken', grant }, refreshTokenDecider.initialState());
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
    await this.deleteRefreshToken(attempt.grant.refreshTokenHash, 'not_delivered', context);
  }

  /** The replay's effect is visible to the metadata endpoints once the refusal arrives. */
  private async revokeRefreshTokenOfReplayedCode(
    replay: AuthorizationCodeReplayed,
    context: CommandContext,
  ): Promise<void> {
    const { position } = await this.deleteRefreshToken(replay.refreshTokenHash, 'authorization_code_replayed', context);
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }

  /** The refresh token's own decider, as DeleteRefreshToken uses it (idempotent). */
  private deleteRefreshToken(
    refreshTokenHash: string,
    reason: RefreshTokenDeletionReason,
    context: CommandContext,
  ): Promise<{ position: number }> {
    return this.refreshTokens.handle(
      refreshTokenStream(refreshTokenHash),
      { type: 'DeleteRefreshToken', reason, now: this.clock.now() },
      context,
    );
  }
}
