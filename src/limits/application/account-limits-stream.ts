import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { EventStreams } from '../../platform/commands/event-streams';
import type { CommandContext } from '../../platform/events/envelope';
import { answerAfterCommit } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { accountLimitsDecider, type AccountLimitsCommand } from '../domain/account-limits.decider';
import type { AccountLimitsState } from '../domain/account-limits.state';
import { limitsAccountStream, type LimitsEvent } from '../domain/limits-events';
import { type BatchCreatePlan, planBatchCreate } from '../domain/property-decisions';
import type { PropertyInput } from '../domain/property-rules';
import { AccountFacts } from './account-facts';
import { ACCOUNT_LIMITS_RETRY_POLICY } from './account-limits-retry';
import { DecidedLimitsReads, type LimitsReads } from './decided-limits-reads';
import { LimitsQueries } from './limits.queries';
import { PropertiesQueries } from './properties.queries';
import { SchemasQueries } from './schemas.queries';

/** A limits command as a handler sends it: the facts are filled in here. */
export type AccountLimitsRequest = AccountLimitsCommand extends infer C
  ? C extends AccountLimitsCommand
    ? Omit<C, 'facts'>
    : never
  : never;

/**
 * Accounts whose folded limits state stays in memory between commands (least recently used
 * dropped first, and no more than SNAPSHOT_CACHE_MAX_BYTES in all): an account with thousands of
 * properties is then not replayed per write.
 */
const ACCOUNT_SNAPSHOTS = 128;

/**
 * The account's limits stream, with the account decider bound once (and the retry policy its
 * contention needs). Every limits command handler decides through it: the account's facts (tier,
 * ceilings, the time) are added, and the answer comes from the read model once it holds the new
 * events, else from the account's stream (a committed write is never answered as a failure).
 */
@Injectable()
export class AccountLimitsStream {
  private readonly accountLimits;
  /** The shared read model's reads. */
  private readonly shared: LimitsReads;

  constructor(
    streams: EventStreams,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly facts: AccountFacts,
    private readonly runner: ProjectionRunner,
    private readonly decided: DecidedLimitsReads,
    limits: LimitsQueries,
    properties: PropertiesQueries,
    schemas: SchemasQueries,
  ) {
    this.shared = { limits, properties, schemas };
    this.accountLimits = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, {
      capacity: ACCOUNT_SNAPSHOTS,
      maxBytes: config.eventCache.snapshotBytes,
    });
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

  /** Decides, then answers with `answer` over the read model holding the command's events. */
  async decideAndRead<T>(
    hubId: number,
    userId: number | null,
    request: AccountLimitsRequest,
    context: CommandContext,
    answer: (reads: LimitsReads, events: LimitsEvent[]) => T,
  ): Promise<T> {
    const command = { ...request, facts: this.facts.of(hubId, userId) } as AccountLimitsCommand;
    const { events, position } = await this.accountLimits.handle(limitsAccountStream(hubId), command, context);
    return this.answer(hubId, position, (reads) => answer(reads, events));
  }

  /** The shared read model once it holds `position`, else the account's stream folded by the same projection. */
  private answer<T>(hubId: number, position: number, read: (reads: LimitsReads) => T): Promise<T> {
    return answerAfterCommit(
      this.runner,
      position,
      () => read(this.shared),
      () => this.decided.read(hubId, read),
    );
  }

  /**
   * A batch create: one command, one append of the inputs that passed. The refusals come from the
   * decision that was appended (a retry after a conflict decides again and reports afresh).
   */
  async decideBatchCreate<T>(
    hubId: number,
    userId: number | null,
    objectType: string,
    inputs: PropertyInput[],
    context: CommandContext,
    answer: (reads: LimitsReads, events: LimitsEvent[], rejected: BatchCreatePlan['rejected']) => T,
  ): Promise<T> {
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
    return this.answer(hubId, position, (reads) => answer(reads, events, rejected));
  }
}
