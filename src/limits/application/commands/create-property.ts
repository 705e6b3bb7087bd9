import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { accountLimitsDecider } from '../../domain/account-limits.decider';
import { limitsAccountStream, LimitsEventType, type PropertyCreated } from '../../domain/limits-events';
import { AccountFacts } from '../account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../account-limits-retry';
import { LimitsQueries } from '../limits.queries';
import type { PropertyView } from '../limits.views';
import type { CommandContext } from '../../../platform/events/envelope';
import type { PropertyInput } from '../../domain/property-rules';

/** POST /crm/v3/properties/{objectType}; fieldType calculation_equation makes a calculated property. */
export class CreateProperty extends Command<PropertyView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly property: PropertyInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Creates a property in the account's limits stream (ceilings checked there), answers it as read back. */
@CommandHandler(CreateProperty)
export class CreatePropertyHandler implements ICommandHandler<CreateProperty> {
  private readonly accountLimits;

  constructor(
    streams: EventStreams,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
    private readonly queries: LimitsQueries,
  ) {
    this.accountLimits = streams.forDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY);
  }

  async execute({ hubId, userId, objectType, property, context }: CreateProperty): Promise<PropertyView> {
    const facts = this.facts.of(hubId, userId);
    const { events, position } = await this.accountLimits.handle(
      limitsAccountStream(hubId),
      { type: 'CreateProperty', facts, objectType, property },
      context,
    );
    await this.runner.waitFor(position);
    const created = events.find((e): e is PropertyCreated => e.type === LimitsEventType.PropertyCreated);
    if (!created) throw new Error('CreateProperty appended no PropertyCreated');
    return this.queries.getProperty(hubId, created.data.objectTypeId, created.data.property.name, false);
  }
}
