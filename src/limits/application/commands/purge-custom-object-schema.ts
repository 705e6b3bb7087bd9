import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import { AccountLimitsStream } from '../account-limits-stream';

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
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, context }: PurgeCustomObjectSchema): Promise<void> {
    await this.accountLimits.decide(hubId, userId, { type: 'PurgeCustomObjectSchema', objectType }, context);
  }
}
