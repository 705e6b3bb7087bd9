import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { sha256Hex } from '../../../platform/security/crypto';
import type { AccessTokenClaims } from '../../domain/access-token';
import { accessTokenDecider } from '../../domain/access-token';
import { accessTokenStream, refreshTokenStream } from '../../domain/oauth-events';
import { refreshTokenDecider } from '../../domain/refresh-token.decider';
import { AccessTokenVerifier } from '../access-token-verifier';
import type { AuthenticatedClient } from '../oauth-form';

/**
 * RFC 7009 revocation (`POST /oauth/2026-03/token/revoke`), a process over the two kinds of token:
 * an access token of the client (signed, so found without a lookup) is revoked on its own stream; a
 * refresh token of the client is deleted as DELETE /oauth/v1/refresh-tokens does. Anything else —
 * unknown, expired, already revoked, another client's — changes nothing and answers the same, so a
 * client learns nothing about tokens that are not its own.
 */
export class RevokeToken extends Command<void> {
  constructor(
    readonly client: AuthenticatedClient,
    readonly token: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RevokeToken)
export class RevokeTokenHandler implements ICommandHandler<RevokeToken> {
  private readonly accessTokens;
  private readonly refreshTokens;

  constructor(
    private readonly streams: EventStreams,
    private readonly verifier: AccessTokenVerifier,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.accessTokens = streams.forDecider(accessTokenDecider);
    this.refreshTokens = streams.forDecider(refreshTokenDecider);
  }

  async execute({ client, token, context }: RevokeToken): Promise<void> {
    const check = this.verifier.check(token);
    if (check.status === 'bad_signature') return;
    if (check.status !== 'malformed') {
      // Signed and not past its own expiry (revoked, or expired early by an admin, included): the
      // client's own token is revoked on its stream; a token past its own expiry needs nothing. Judged
      // on real time, not the install's own clock (check.now): a token expired only in the install's
      // time still works after its clock is reset (DELETE …/clock), so it is revoked all the same.
      if (check.claims.expiresAt > this.clock.now() && check.claims.appId === client.appId)
        await this.revokeAccessToken(check.claims, context);
      return;
    }
    // A malformed access token may be a refresh token.
    if (token.length > 512) return;
    const hash = sha256Hex(token);
    const { state } = await this.streams.load(refreshTokenStream(hash), refreshTokenDecider);
    if (state.status !== 'active' || state.grant.clientId !== client.clientId) return;
    const { position } = await this.refreshTokens.handle(
      refreshTokenStream(hash),
      { type: 'DeleteRefreshToken', reason: 'deleted_by_client', now: this.clock.now() },
      context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    if (position > 0) await this.runner.readModelsReached(position);
  }

  /**
   * AccessTokenRevoked on the token's own stream (found from the issue second and id the signed token
   * carries). Answers once this instance's revocation set holds it, so the very next request with the
   * token fails at the bearer guard. A token already revoked or expired changes nothing.
   */
  private async revokeAccessToken(claims: AccessTokenClaims, context: CommandContext): Promise<void> {
    const { position } = await this.accessTokens.handle(
      accessTokenStream(claims.issuedAt, claims.tokenId),
      {
        type: 'RevokeAccessToken',
        now: this.clock.now(),
        token: {
          tokenId: claims.tokenId,
          appId: claims.appId,
          ...(claims.appToken ? {} : { hubId: claims.hubId }),
          ...(claims.appInstallId !== undefined ? { installId: claims.appInstallId } : {}),
          expiresAt: claims.expiresAt,
        },
      },
      context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    if (position > 0) await this.runner.readModelsReached(position);
  }
}
