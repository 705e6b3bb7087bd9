import { Injectable } from '@nestjs/common';
import { EventStreams } from '../../platform/commands/event-streams';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { accountLimitsDecider, type AccountLimitsCommand } from '../domain/account-limits.decider';
import { limitsAccountStream, type LimitsEvent } from '../domain/limits-events';
import { AccountFacts } from './account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from './account-limits-retry';

/** A limits command as a handler sends it: the facts are filled in here. */
export type AccountLimitsRequest = AccountLimitsCommand extends infer C
  ? C extends AccountLimitsCommand
    ? Omit<C, 'facts'>
    : never
  : never;

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
    this.accountLimits = streams.forDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY);
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
}
