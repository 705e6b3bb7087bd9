import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import type { PropertyGroupPatch } from '../../domain/property-decisions';
import { AccountLimitsStream } from '../account-limits-stream';
import type { PropertyGroupView } from '../limits.views';

/** PATCH /crm/v3/properties/{objectType}/groups/{groupName}: label and display order. */
export class UpdatePropertyGroup extends Command<PropertyGroupView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly patch: PropertyGroupPatch,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(UpdatePropertyGroup)
export class UpdatePropertyGroupHandler implements ICommandHandler<UpdatePropertyGroup> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, name, patch, context }: UpdatePropertyGroup): Promise<PropertyGroupView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'UpdatePropertyGroup', objectType, name, patch },
      context,
      ({ properties }) => properties.getGroup(hubId, objectType, name),
    );
  }
}
