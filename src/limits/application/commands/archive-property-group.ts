import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import { AccountLimitsStream } from '../account-limits-stream';

/** DELETE /crm/v3/properties/{objectType}/groups/{groupName}: only an empty group of the account's own. */
export class ArchivePropertyGroup extends Command<void> {
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

@CommandHandler(ArchivePropertyGroup)
export class ArchivePropertyGroupHandler implements ICommandHandler<ArchivePropertyGroup> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, name, context }: ArchivePropertyGroup): Promise<void> {
    await this.accountLimits.decide(hubId, userId, { type: 'ArchivePropertyGroup', objectType, name }, context);
  }
}
