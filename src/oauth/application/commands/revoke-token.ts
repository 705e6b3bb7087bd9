import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { sha256Hex } from '../../../platform/security/constant-time';
import { SigningKeyring } from '../../../platform/security/signing-keys';
import { verifyAccessToken } from '../../domain/access-token';
import { refreshTokenStream } from '../../domain/oauth-events';
import { refreshTokenDecider } from '../../domain/refresh-token.decider';
import type { AuthenticatedClient } from '../client-authentication';
import { RevokeAccessToken } from './revoke-access-token';
import { RevokeRefreshToken } from './revoke-refresh-token';

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
export class RevokeTokenProcess implements ICommandHandler<RevokeToken> {
  constructor(
    private readonly streams: EventStreams,
    private readonly commandBus: CommandBus,
    private readonly keys: SigningKeyring,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ client, token, context }: RevokeToken): Promise<void> {
    const verified = verifyAccessToken(token, this.keys, this.clock.now());
    if (verified.ok) {
      if (verified.claims.appId === client.appId)
        await this.commandBus.execute(new RevokeAccessToken(verified.claims, context));
      return;
    }
    // An expired access token needs nothing; a malformed one may be a refresh token.
    if (verified.reason !== 'malformed' || token.length > 512) return;
    const hash = sha256Hex(token);
    const { state } = await this.streams.load(refreshTokenStream(hash), refreshTokenDecider);
    if (state.status !== 'active' || state.grant.clientId !== client.clientId) return;
    const { position } = await this.commandBus.execute(new RevokeRefreshToken(hash, 'deleted_by_client', context));
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    if (position > 0) await this.runner.readModelsReached(position);
  }
}
