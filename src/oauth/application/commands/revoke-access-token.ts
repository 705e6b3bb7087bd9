import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import type { AccessTokenClaims } from '../../domain/access-token';
import { accessTokenDecider } from '../../domain/access-token.decider';
import { accessTokenStream } from '../../domain/oauth-events';

/**
 * AccessTokenRevoked on the token's own stream (found from the issue second and id the signed token
 * carries). Answers once this instance's revocation set holds it, so the very next request with the
 * token fails at the bearer guard. A token already revoked or expired changes nothing.
 */
export class RevokeAccessToken extends Command<void> {
  constructor(
    /** Verified claims of a token of the revoking client (checked by the caller). */
    readonly claims: AccessTokenClaims,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RevokeAccessToken)
export class RevokeAccessTokenHandler implements ICommandHandler<RevokeAccessToken> {
  private readonly accessTokens;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.accessTokens = streams.forDecider(accessTokenDecider);
  }

  async execute({ claims, context }: RevokeAccessToken): Promise<void> {
    const { position } = await this.accessTokens.handle(
      accessTokenStream(claims.issuedAt, claims.tokenId),
      {
        kind: 'RevokeAccessToken',
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
