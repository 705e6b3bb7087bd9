import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { accountLimitsDecider } from '../../domain/account-limits.decider';
import { limitsAccountStream } from '../../domain/limits-events';
import { AccountFacts } from '../account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../account-limits-retry';
import type { CommandContext } from '../../../platform/events/envelope';

/** DELETE /crm/v3/properties/{objectType}/{propertyName}. */
export class ArchiveProperty extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Archives a property (its slot is free again); archiving it twice appends nothing. */
@CommandHandler(ArchiveProperty)
export class ArchivePropertyHandler implements ICommandHandler<ArchiveProperty> {
  private readonly accountLimits;

  constructor(
    streams: EventStreams,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
  ) {
    this.accountLimits = streams.forDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY);
  }

  async execute({ hubId, userId, objectType, name, context }: ArchiveProperty): Promise<void> {
    const facts = this.facts.of(hubId, userId);
    const { position } = await this.accountLimits.handle(
      limitsAccountStream(hubId),
      { type: 'ArchiveProperty', facts, objectType, name },
      context,
    );
    await this.runner.waitFor(position);
  }
}
