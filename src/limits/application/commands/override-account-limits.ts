import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { accountLimitsDecider } from '../../domain/account-limits.decider';
import { limitsAccountStream } from '../../domain/limits-events';
import { AccountFacts } from '../account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from '../account-limits-retry';
import { AccountLimitsView, LimitsQueries } from '../limits.queries';
import type { CommandContext } from '../../../platform/events/envelope';
import type { LimitOverrides } from '../../domain/limits-events';

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
  private readonly accountLimits;

  constructor(
    streams: EventStreams,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
    private readonly queries: LimitsQueries,
  ) {
    this.accountLimits = streams.forDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY);
  }

  async execute({ hubId, overrides, context }: OverrideAccountLimits): Promise<AccountLimitsView> {
    const facts = this.facts.of(hubId, null);
    const { position } = await this.accountLimits.handle(
      limitsAccountStream(hubId),
      { type: 'OverrideAccountLimits', facts, overrides },
      context,
    );
    await this.runner.waitFor(position);
    return this.queries.accountLimits(hubId);
  }
}
