import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { accountLimitsDecider } from '../../domain/account-limits.decider';
import { type CustomObjectSchemaCreated, limitsAccountStream, LimitsEventType } from '../../domain/limits-events';
import { AccountFacts } from '../account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../account-limits-retry';
import { LimitsQueries } from '../limits.queries';
import type { ObjectSchemaView } from '../limits.views';
import type { CommandContext } from '../../../platform/events/envelope';
import type { SchemaInput } from '../../domain/schema-rules';

/** POST /crm/v3/schemas: the custom object type with its properties and associations. */
export class CreateCustomObjectSchema extends Command<ObjectSchemaView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly schema: SchemaInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Creates a custom object type with its properties in one append, answers it as read back. */
@CommandHandler(CreateCustomObjectSchema)
export class CreateCustomObjectSchemaHandler implements ICommandHandler<CreateCustomObjectSchema> {
  private readonly accountLimits;

  constructor(
    streams: EventStreams,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
    private readonly queries: LimitsQueries,
  ) {
    this.accountLimits = streams.forDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY);
  }

  async execute({ hubId, userId, schema, context }: CreateCustomObjectSchema): Promise<ObjectSchemaView> {
    const facts = this.facts.of(hubId, userId);
    const { events, position } = await this.accountLimits.handle(
      limitsAccountStream(hubId),
      { type: 'CreateCustomObjectSchema', facts, schema },
      context,
    );
    await this.runner.waitFor(position);
    const created = events.find(
      (e): e is CustomObjectSchemaCreated => e.type === LimitsEventType.CustomObjectSchemaCreated,
    );
    if (!created) throw new Error('CreateCustomObjectSchema appended no CustomObjectSchemaCreated');
    return this.queries.getSchema(hubId, created.data.objectTypeId);
  }
}
