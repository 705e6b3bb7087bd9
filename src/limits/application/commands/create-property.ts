import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { LimitsEventType, type PropertyCreated } from '../../domain/limits-events';
import type { PropertyView } from '../limits.views';
import type { CommandContext } from '../../../platform/events/envelope';
import type { PropertyInput } from '../../domain/property-rules';
import { AccountLimitsStream } from '../account-limits-stream';

/** POST /crm/v3/properties/{objectType}; fieldType calculation_equation makes a calculated property. */
export class CreateProperty extends Command<PropertyView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly property: PropertyInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Creates a property in the account's limits stream (ceilings checked there), answers it as the read model shows it. */
@CommandHandler(CreateProperty)
export class CreatePropertyHandler implements ICommandHandler<CreateProperty> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, property, context }: CreateProperty): Promise<PropertyView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'CreateProperty', objectType, property },
      context,
      ({ properties }, events) => {
        const created = events.find((e): e is PropertyCreated => e.type === LimitsEventType.PropertyCreated);
        if (!created) throw new Error('CreateProperty appended no PropertyCreated');
        return properties.get(hubId, created.data.objectTypeId, created.data.property.name, false);
      },
    );
  }
}
