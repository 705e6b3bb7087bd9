import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import type { PropertyGroupPatch } from '../../domain/property-decisions';
import { AccountLimitsStream } from '../account-limits-stream';
import type { PropertyGroupView } from '../limits.views';
import { PropertiesQueries } from '../properties.queries';

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
  constructor(
    private readonly accountLimits: AccountLimitsStream,
    private readonly queries: PropertiesQueries,
  ) {}

  async execute({ hubId, userId, objectType, name, patch, context }: UpdatePropertyGroup): Promise<PropertyGroupView> {
    await this.accountLimits.decide(hubId, userId, { type: 'UpdatePropertyGroup', objectType, name, patch }, context);
    return this.queries.getGroup(hubId, objectType, name);
  }
}
