import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/commands/command-executor';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import {
  AccountLimitsCommand,
  accountLimitsDecider,
  CommandFacts,
  SchemaInput,
} from '../domain/account-limits.decider';
import { LimitOverrides, limitsAccountStream, LimitsEvent, LimitsEventType } from '../domain/limits-events';
import type { PropertyInput } from '../domain/property-rules';
import { AccountLimitsView, LimitsQueries } from './limits.queries';
import type { ObjectSchemaView, PropertyView } from './limits.views';

/**
 * Every write of an account goes through one stream, so a burst of concurrent writes on one
 * account (16 property creates at once) loses the expected-revision race more often than the
 * executor's default allows for: each round one writer wins, so allow two rounds per writer.
 */
const ACCOUNT_WRITE_ATTEMPTS = 32;

type WithoutFacts<C> = C extends { facts: CommandFacts } ? Omit<C, 'facts'> : never;

/**
 * The write side: each command loads the account's own limits stream, decides with the ceilings
 * of the account's tier (and its overrides, which live in that stream), appends with the expected
 * revision, then waits for the read model so that the answer (and any following read) sees it.
 */
@Injectable()
export class LimitsCommands {
  constructor(
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    private readonly queries: LimitsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private async run(
    hubId: number,
    userId: number | null,
    command: WithoutFacts<AccountLimitsCommand>,
    ctx: CommandContext,
  ): Promise<LimitsEvent[]> {
    const tier = this.queries.tierOf(hubId);
    const { tierLimits } = this.queries.limitsOf(hubId);
    const facts: CommandFacts = { hubId, tier, tierLimits, userId, now: this.clock.now() };
    const full = { ...command, facts } as AccountLimitsCommand;
    const result = await this.executor.execute(
      limitsAccountStream(hubId),
      accountLimitsDecider,
      (state) => accountLimitsDecider.decide(full, state),
      ctx,
      { maxAttempts: ACCOUNT_WRITE_ATTEMPTS },
    );
    await this.runner.waitFor(result.position);
    return result.events;
  }

  async createProperty(
    hubId: number,
    userId: number,
    objectType: string,
    property: PropertyInput,
    ctx: CommandContext,
  ): Promise<PropertyView> {
    const events = await this.run(hubId, userId, { type: 'CreateProperty', objectType, property }, ctx);
    const created = events.find((e) => e.type === LimitsEventType.PropertyCreated);
    if (!created || created.type !== LimitsEventType.PropertyCreated)
      throw new Error('CreateProperty appended no PropertyCreated');
    return this.queries.getProperty(hubId, created.data.objectTypeId, created.data.property.name, false);
  }

  async archiveProperty(
    hubId: number,
    userId: number,
    objectType: string,
    name: string,
    ctx: CommandContext,
  ): Promise<void> {
    await this.run(hubId, userId, { type: 'ArchiveProperty', objectType, name }, ctx);
  }

  async createSchema(
    hubId: number,
    userId: number,
    schema: SchemaInput,
    ctx: CommandContext,
  ): Promise<ObjectSchemaView> {
    const events = await this.run(hubId, userId, { type: 'CreateCustomObjectSchema', schema }, ctx);
    const created = events.find((e) => e.type === LimitsEventType.CustomObjectSchemaCreated);
    if (!created || created.type !== LimitsEventType.CustomObjectSchemaCreated) {
      throw new Error('CreateCustomObjectSchema appended no CustomObjectSchemaCreated');
    }
    return this.queries.getSchema(hubId, created.data.objectTypeId);
  }

  async archiveSchema(
    hubId: number,
    userId: number,
    objectType: string,
    purge: boolean,
    ctx: CommandContext,
  ): Promise<void> {
    await this.run(hubId, userId, { type: 'ArchiveCustomObjectSchema', objectType, purge }, ctx);
  }

  async overrideLimits(hubId: number, overrides: LimitOverrides, ctx: CommandContext): Promise<AccountLimitsView> {
    await this.run(hubId, null, { type: 'OverrideAccountLimits', overrides }, ctx);
    return this.queries.accountLimits(hubId);
  }
}
