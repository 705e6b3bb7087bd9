import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import type { PropertyGroupInput } from '../../domain/property-decisions';
import { AccountLimitsStream } from '../account-limits-stream';
import type { PropertyGroupView } from '../limits.views';

/** POST /crm/v3/properties/{objectType}/groups. */
export class CreatePropertyGroup extends Command<PropertyGroupView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly group: PropertyGroupInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CreatePropertyGroup)
export class CreatePropertyGroupHandler implements ICommandHandler<CreatePropertyGroup> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, group, context }: CreatePropertyGroup): Promise<PropertyGroupView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'CreatePropertyGroup', objectType, group },
      context,
      ({ properties }) => properties.getGroup(hubId, objectType, group.name),
    );
  }
}
