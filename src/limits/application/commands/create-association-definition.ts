import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import type { AssociationInput } from '../../domain/association-definitions';
import { type AssociationDefinitionCreated, LimitsEventType } from '../../domain/limits-events';
import { AccountLimitsStream } from '../account-limits-stream';
import type { AssociationView } from '../limits.views';

/** POST /crm/v3/schemas/{objectType}/associations: a named one counts against the pair's label ceiling. */
export class CreateAssociationDefinition extends Command<AssociationView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly association: AssociationInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Decided on the account's stream, so concurrent creates at the last label slots cannot pass the ceiling. */
@CommandHandler(CreateAssociationDefinition)
export class CreateAssociationDefinitionHandler implements ICommandHandler<CreateAssociationDefinition> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({
    hubId,
    userId,
    objectType,
    association,
    context,
  }: CreateAssociationDefinition): Promise<AssociationView> {
    return this.accountLimits.decideAndRead(
      hubId,
      userId,
      { type: 'CreateAssociationDefinition', objectType, association },
      context,
      ({ schemas }, events) => {
        const created = events.find(
          (e): e is AssociationDefinitionCreated => e.type === LimitsEventType.AssociationDefinitionCreated,
        );
        if (!created) throw new Error('CreateAssociationDefinition appended no AssociationDefinitionCreated');
        const { fromObjectTypeId, id } = created.data.association;
        return schemas.getAssociation(hubId, fromObjectTypeId, id);
      },
    );
  }
}
