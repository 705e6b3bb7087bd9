import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import type { PropertyPatch } from '../../domain/property-decisions';
import { AccountLimitsStream } from '../account-limits-stream';
import type { PropertyView } from '../limits.views';

/** PATCH /crm/v3/properties/{objectType}/{propertyName}. */
export class UpdateProperty extends Command<PropertyView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly patch: PropertyPatch,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Changes one property (a change to or from calculation_equation moves it across the calculated ceiling). */
@CommandHandler(UpdateProperty)
export class UpdatePropertyHandler implements ICommandHandler<UpdateProperty> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, name, patch, context }: UpdateProperty): Promise<PropertyView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'UpdateProperty', objectType, name, patch },
      context,
      ({ properties }) => properties.get(hubId, objectType, name, false),
    );
  }
}
