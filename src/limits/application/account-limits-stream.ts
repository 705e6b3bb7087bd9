import { Injectable } from '@nestjs/common';
import { EventStreams } from '../../platform/commands/event-streams';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { accountLimitsDecider, type AccountLimitsCommand } from '../domain/account-limits.decider';
import type { AccountLimitsState } from '../domain/account-limits.state';
import { limitsAccountStream, type LimitsEvent } from '../domain/limits-events';
import { type BatchCreatePlan, planBatchCreate } from '../domain/property-decisions';
import type { PropertyInput } from '../domain/property-rules';
import { AccountFacts } from './account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from './account-limits-retry';

/** A limits command as a handler sends it: the facts are filled in here. */
export type AccountLimitsRequest = AccountLimitsCommand extends infer C
  ? C extends AccountLimitsCommand
    ? Omit<C, 'facts'>
    : never
  : never;

/**
 * Accounts whose folded limits state stays in memory between commands (least recently used
 * dropped first): an account with thousands of properties is then not replayed per write.
 */
const ACCOUNT_SNAPSHOTS = 128;

/**
 * The account's limits stream, with the account decider bound once (and the retry policy its
 * contention needs). Every limits command handler decides through it: the account's facts (tier,
 * ceilings, the time) are added, and the answer comes once the read model holds the new events.
 */
@Injectable()
export class AccountLimitsStream {
  private readonly accountLimits;

  constructor(
    streams: EventStreams,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
  ) {
    this.accountLimits = streams.forSnapshottedDecider(
      accountLimitsDecider,
      ACCOUNT_LIMITS_RETRY_POLICY,
      ACCOUNT_SNAPSHOTS,
    );
  }

  async decide(
    hubId: number,
    userId: number | null,
    request: AccountLimitsRequest,
    context: CommandContext,
  ): Promise<LimitsEvent[]> {
    const command = { ...request, facts: this.facts.of(hubId, userId) } as AccountLimitsCommand;
    const { events, position } = await this.accountLimits.handle(limitsAccountStream(hubId), command, context);
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
    return events;
  }

  /**
   * A batch create: one command, one append of the inputs that passed. The refusals come from the
   * decision that was appended (a retry after a conflict decides again and reports afresh).
   */
  async decideBatchCreate(
    hubId: number,
    userId: number | null,
    objectType: string,
    inputs: PropertyInput[],
    context: CommandContext,
  ): Promise<{ events: LimitsEvent[]; rejected: BatchCreatePlan['rejected'] }> {
    let rejected: BatchCreatePlan['rejected'] = [];
    const decide = (command: AccountLimitsCommand, state: AccountLimitsState) => {
      if (command.type !== 'BatchCreateProperties') return accountLimitsDecider.decide(command, state);
      const plan = planBatchCreate(command, state);
      rejected = plan.rejected;
      return plan.events;
    };
    const command: AccountLimitsCommand = {
      type: 'BatchCreateProperties',
      objectType,
      inputs,
      facts: this.facts.of(hubId, userId),
    };
    const { events, position } = await this.accountLimits.handle(limitsAccountStream(hubId), command, context, decide);
    if (position > 0) await this.runner.waitFor(position);
    return { events, rejected };
  }
}
