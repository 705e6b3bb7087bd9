import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import type { SchemaPatchInput } from '../../domain/schema-patch';
import { AccountLimitsStream } from '../account-limits-stream';
import type { ObjectTypeDefinitionView } from '../limits.views';

/** PATCH /crm/v3/schemas/{objectType}: labels, display and required lists, description. */
export class UpdateCustomObjectSchema extends Command<ObjectTypeDefinitionView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly patch: SchemaPatchInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Records the changed fields of an active custom schema and answers its ObjectTypeDefinition as read back. */
@CommandHandler(UpdateCustomObjectSchema)
export class UpdateCustomObjectSchemaHandler implements ICommandHandler<UpdateCustomObjectSchema> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({
    hubId,
    userId,
    objectType,
    patch,
    context,
  }: UpdateCustomObjectSchema): Promise<ObjectTypeDefinitionView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'UpdateCustomObjectSchema', objectType, patch },
      context,
      ({ schemas }) => schemas.getObjectTypeDefinition(hubId, objectType),
    );
  }
}
