import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import { AccountLimitsStream } from '../account-limits-stream';

/** DELETE /crm/v3/schemas/{objectType}/associations/{associationIdentifier}: frees a label slot of its pair. */
export class DeleteAssociationDefinition extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly associationIdentifier: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(DeleteAssociationDefinition)
export class DeleteAssociationDefinitionHandler implements ICommandHandler<DeleteAssociationDefinition> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({
    hubId,
    userId,
    objectType,
    associationIdentifier,
    context,
  }: DeleteAssociationDefinition): Promise<void> {
    await this.accountLimits.decide(
      hubId,
      userId,
      { type: 'DeleteAssociationDefinition', objectType, associationIdentifier },
      context,
    );
  }
}
