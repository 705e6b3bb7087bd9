import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '../../../platform/events/envelope';
import { AccountLimitsStream } from '../account-limits-stream';

/** POST /crm/v3/properties/{objectType}/batch/archive. */
export class BatchArchiveProperties extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly names: string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Archives the active ones of the named properties in one append (the others need nothing). */
@CommandHandler(BatchArchiveProperties)
export class BatchArchivePropertiesHandler implements ICommandHandler<BatchArchiveProperties> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, userId, objectType, names, context }: BatchArchiveProperties): Promise<void> {
    await this.accountLimits.decide(hubId, userId, { type: 'BatchArchiveProperties', objectType, names }, context);
  }
}
