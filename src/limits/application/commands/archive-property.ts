import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import { AccountLimitsStream } from '../account-limits-stream';

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
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, name, context }: ArchiveProperty): Promise<void> {
    await this.accountLimits.decide(hubId, userId, { type: 'ArchiveProperty', objectType, name }, context);
  }
}
