import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { accountLimitsDecider } from '../../domain/account-limits.decider';
import { limitsAccountStream } from '../../domain/limits-events';
import { AccountFacts } from '../account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../account-limits-retry';
import type { CommandContext } from '../../../platform/events/envelope';

/** DELETE /crm/v3/schemas/{objectType}?archived=true: hard delete of an archived schema. */
export class PurgeCustomObjectSchema extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Deletes an archived custom object type for good, so that its name can be used again. */
@CommandHandler(PurgeCustomObjectSchema)
export class PurgeCustomObjectSchemaHandler implements ICommandHandler<PurgeCustomObjectSchema> {
  private readonly accountLimits;

  constructor(
    streams: EventStreams,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
  ) {
    this.accountLimits = streams.forDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY);
  }

  async execute({ hubId, userId, objectType, context }: PurgeCustomObjectSchema): Promise<void> {
    const facts = this.facts.of(hubId, userId);
    const { position } = await this.accountLimits.handle(
      limitsAccountStream(hubId),
      { type: 'PurgeCustomObjectSchema', facts, objectType },
      context,
    );
    await this.runner.waitFor(position);
  }
}
