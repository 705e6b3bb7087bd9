import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import { AccountLimitsStream } from '../account-limits-stream';

/** DELETE /crm/v3/schemas/{objectType}: frees its slot; the name stays reserved. */
export class ArchiveCustomObjectSchema extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Archives a custom object type: its slot and its properties' slots are free; its name stays taken. */
@CommandHandler(ArchiveCustomObjectSchema)
export class ArchiveCustomObjectSchemaHandler implements ICommandHandler<ArchiveCustomObjectSchema> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, context }: ArchiveCustomObjectSchema): Promise<void> {
    await this.accountLimits.decide(hubId, userId, { type: 'ArchiveCustomObjectSchema', objectType }, context);
  }
}
