import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AccountLimitsView } from '../limits.queries';
import type { CommandContext } from '../../../platform/events/envelope';
import type { LimitOverrides } from '../../domain/limits-events';
import { AccountLimitsStream } from '../account-limits-stream';

/** PUT /admin/v1/accounts/{hubId}/limits: a number sets a ceiling, null clears it, absent keeps it. */
export class OverrideAccountLimits extends Command<AccountLimitsView> {
  constructor(
    readonly hubId: number,
    readonly overrides: LimitOverrides,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Sets or clears per-account ceilings. They live in the account's limits stream, so a create that
 * races an override is decided against one or the other, never a mix.
 */
@CommandHandler(OverrideAccountLimits)
export class OverrideAccountLimitsHandler implements ICommandHandler<OverrideAccountLimits> {
  constructor(private readonly accountLimits: AccountLimitsStream) {}

  async execute({ hubId, overrides, context }: OverrideAccountLimits): Promise<AccountLimitsView> {
    return this.accountLimits.decideAndRead(
      hubId,
      null,
      { type: 'OverrideAccountLimits', overrides },
      context,
      ({ limits }) => limits.accountLimits(hubId),
    );
  }
}
