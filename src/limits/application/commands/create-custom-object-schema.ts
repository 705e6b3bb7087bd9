import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type CustomObjectSchemaCreated, LimitsEventType } from '../../domain/limits-events';
import type { ObjectSchemaView } from '../limits.views';
import type { CommandContext } from '../../../platform/events/envelope';
import type { SchemaInput } from '../../domain/schema-rules';
import { AccountLimitsStream } from '../account-limits-stream';

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
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, schema, context }: CreateCustomObjectSchema): Promise<ObjectSchemaView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'CreateCustomObjectSchema', schema },
      context,
      ({ schemas }, events) => {
        const created = events.find(
          (e): e is CustomObjectSchemaCreated => e.type === LimitsEventType.CustomObjectSchemaCreated,
        );
        if (!created) throw new Error('CreateCustomObjectSchema appended no CustomObjectSchemaCreated');
        return schemas.getSchema(hubId, created.data.objectTypeId);
      },
    );
  }
}
