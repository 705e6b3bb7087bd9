import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { CLOCK, Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { sha256Hex } from '../../../platform/security/crypto';
import { accountDecider, type IssueDeveloperApiKey as Decided } from '../../domain/directory-deciders';
import { accountStream } from '../../domain/directory-events';

export interface IssuedDeveloperApiKey {
  hubId: number;
  keyId: string;
  /** The key itself: in this answer only; the store keeps its SHA-256. */
  developerApiKey: string;
  issuedAt: number;
}

/** A developer API key for the account (HubSpot's `hapikey`); the previous key, if any, stops working. */
export class IssueDeveloperApiKey extends Command<IssuedDeveloperApiKey> implements Pick<Decided, 'type' | 'hubId'> {
  readonly type = 'IssueDeveloperApiKey' as const;
  constructor(
    readonly hubId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Makes the key here (a random UUID, 122 random bits, the format of HubSpot's developer keys), so
 * only its hash reaches the decider and the event. Answers once the read model knows the new key
 * (and no longer the retired one), so the key works on the next request.
 */
@CommandHandler(IssueDeveloperApiKey)
export class IssueDeveloperApiKeyHandler implements ICommandHandler<IssueDeveloperApiKey> {
  private readonly accounts;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.accounts = streams.forDecider(accountDecider);
  }

  async execute({ hubId, context }: IssueDeveloperApiKey): Promise<IssuedDeveloperApiKey> {
    const developerApiKey = randomUUID();
    const keyId = randomBytes(8).toString('hex');
    const issuedAt = this.clock.now();
    const { position } = await this.accounts.handle(
      accountStream(hubId),
      { type: 'IssueDeveloperApiKey', hubId, keyId, keyHash: sha256Hex(developerApiKey), now: issuedAt },
      context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
    return { hubId, keyId, developerApiKey, issuedAt };
  }
}
