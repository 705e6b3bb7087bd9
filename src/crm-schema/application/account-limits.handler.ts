import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../directory/directory.queries';
import { CLOCK, type Clock } from '../../platform/clock';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { EventStreams } from '../../platform/commands/event-streams';
import type { RetryPolicy } from '../../platform/commands/retry-policy';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { answerAfterCommit, type ReadModel } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { accountLimitsDecider, type AccountLimitsCommand, type CommandFacts } from '../domain/account-limits.decider';
import {
  type AssociationDefinition,
  type AssociationDefinitionCreated,
  type CustomObjectSchemaCreated,
  limitsAccountStream,
  type LimitsEvent,
  LimitsEventType,
  type PropertyCreated,
} from '../domain/limits-events';
import type { BatchRefusal } from '../domain/property-decisions';
import { LimitsProjection } from '../projections/limits.projection';
import { type AccountLimitsAnswers, AccountLimitsBusCommand, type AccountLimitsInput } from './account-limits.commands';

/** Any command's answer (AccountLimitsBusCommand types each one for its sender). */
type Answer = AccountLimitsAnswers[keyof AccountLimitsAnswers];
import { LimitsQueries } from './limits.queries';
import type { AssociationLabelTypesView } from './schema.views';
import { iso, standardError, type PropertyBatchView } from './property.views';
import { PropertiesQueries } from './properties.queries';
import { SchemasQueries } from './schemas.queries';

/** The reads a limits command answers with, over the shared read model or the command's own. */
export interface LimitsReads {
  limits: LimitsQueries;
  properties: PropertiesQueries;
  schemas: SchemasQueries;
}

/**
 * Accounts whose folded limits state stays in memory between commands (least recently used
 * dropped first, and no more than SNAPSHOT_CACHE_MAX_BYTES in all): an account with thousands of
 * properties is then not replayed per write.
 */
const ACCOUNT_SNAPSHOTS = 128;

/**
 * Every write of an account goes through one stream, so a burst of concurrent writes on one
 * account (16 property creates at once) loses the expected-revision race more often than the
 * default policy allows for: each round one writer wins, so allow two rounds per writer.
 */
export const ACCOUNT_LIMITS_RETRY_POLICY: RetryPolicy = { maxAttempts: 32 };

/**
 * The one handler of an account's limits stream (every AccountLimitsBusCommand): the account decider is bound once (snapshotted, with the retry policy
 * its contention needs), the account's facts (tier, ceilings, time) are added to the command, and a
 * command that answers with data answers after commit (platform/projections/answer-after-commit.ts)
 * from the `limits` read model.
 */
@CommandHandler(AccountLimitsBusCommand)
export class AccountLimitsHandler implements ICommandHandler<AccountLimitsBusCommand> {
  private readonly accountLimits;
  private readonly readModel: ReadModel<LimitsReads>;

  constructor(
    streams: EventStreams,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runner: ProjectionRunner,
    projection: LimitsProjection,
    directory: DirectoryQueries,
    private readonly limits: LimitsQueries,
    properties: PropertiesQueries,
    schemas: SchemasQueries,
  ) {
    this.accountLimits = streams.forSnapshottedDecider(accountLimitsDecider, ACCOUNT_LIMITS_RETRY_POLICY, {
      capacity: ACCOUNT_SNAPSHOTS,
      maxBytes: config.eventCache.snapshotBytes,
    });
    this.readModel = {
      projection,
      shared: { limits, properties, schemas },
      over: (db) => {
        const scratch = new LimitsQueries(db, config, directory);
        return { limits: scratch, properties: new PropertiesQueries(db, scratch), schemas: new SchemasQueries(db) };
      },
    };
  }

  async execute({ hubId, userId, command, context }: AccountLimitsBusCommand): Promise<Answer> {
    // A batch reports when it started; read before the facts' time, as the batch always did.
    const startedAt = command.type === 'BatchCreateProperties' ? this.clock.now() : 0;
    const stream = limitsAccountStream(hubId);
    const decided = { ...command, facts: this.factsOf(hubId, userId) } as AccountLimitsCommand;
    const { events, position, rejected = [] } = await this.accountLimits.handle(stream, decided, context);
    const read = answerOf(hubId, command, events);
    if (read === null) {
      // Committed: answered even when the read models cannot catch up now (readiness reports it).
      await this.runner.readModelsReached(position);
      return undefined;
    }
    const answer = await answerAfterCommit(
      { runner: this.runner, store: this.store, position, streams: [stream] },
      this.readModel,
      read,
    );
    return command.type === 'BatchCreateProperties'
      ? batchAnswer(command, answer as PropertyBatchView['results'], rejected, startedAt, this.clock.now())
      : (answer as Answer);
  }

  /**
   * What a decision needs besides the account's stream: the account's tier (from the directory; an
   * unknown account is a 404 before anything is decided), its tier's ceilings (from configuration),
   * who asks, and the time (read once, here at the edge).
   */
  private factsOf(hubId: number, userId: number | null): CommandFacts {
    const tier = this.limits.tierOf(hubId);
    return { hubId, tier, tierLimits: this.config.tierLimits[tier], userId, now: this.clock.now() };
  }
}

/** What a command answers, read from a limits read model holding its events; null: it answers nothing. */
function answerOf(
  hubId: number,
  command: AccountLimitsInput,
  events: LimitsEvent[],
): ((reads: LimitsReads) => unknown) | null {
  switch (command.type) {
    case 'CreateProperty': {
      const [created] = events.filter(isPropertyCreated);
      return ({ properties }) =>
        created && properties.get(hubId, created.data.objectTypeId, created.data.property.name, false);
    }
    case 'BatchCreateProperties':
      return ({ properties }) =>
        events
          .filter(isPropertyCreated)
          .map((e) => properties.get(hubId, e.data.objectTypeId, e.data.property.name, false));
    case 'UpdateProperty':
      return ({ properties }) => properties.get(hubId, command.objectType, command.name, false);
    case 'CreatePropertyGroup':
      return ({ properties }) => properties.getGroup(hubId, command.objectType, command.group.name);
    case 'UpdatePropertyGroup':
      return ({ properties }) => properties.getGroup(hubId, command.objectType, command.name);
    case 'CreateCustomObjectSchema': {
      const created = events.find(
        (e): e is CustomObjectSchemaCreated => e.type === LimitsEventType.CustomObjectSchemaCreated,
      );
      return ({ schemas }) => created && schemas.getSchema(hubId, created.data.objectTypeId);
    }
    case 'UpdateCustomObjectSchema':
      return ({ schemas }) => schemas.getObjectTypeDefinition(hubId, command.objectType);
    case 'CreateAssociationDefinition': {
      const created = events.find(
        (e): e is AssociationDefinitionCreated => e.type === LimitsEventType.AssociationDefinitionCreated,
      );
      return ({ schemas }) =>
        created &&
        schemas.getAssociation(hubId, created.data.association.fromObjectTypeId, created.data.association.id);
    }
    case 'CreateAssociationLabel': {
      const created = events.find(
        (e): e is AssociationDefinitionCreated => e.type === LimitsEventType.AssociationDefinitionCreated,
      );
      // Answered from the event: the label is read by the associations module's own read model.
      return () => created && associationLabelTypes(created.data.association);
    }
    case 'OverrideAccountLimits':
      return ({ limits }) => limits.accountLimits(hubId);
    default:
      return null;
  }
}

const isPropertyCreated = (e: LimitsEvent): e is PropertyCreated => e.type === LimitsEventType.PropertyCreated;

/** A batch create's body: the created properties as read back, each rejected input as HubSpot's StandardError. */
function batchAnswer(
  { inputs }: Extract<AccountLimitsInput, { type: 'BatchCreateProperties' }>,
  results: PropertyBatchView['results'],
  rejected: BatchRefusal[],
  startedAt: number,
  completedAt: number,
): PropertyBatchView {
  const body: PropertyBatchView = {
    status: 'COMPLETE',
    results,
    startedAt: iso(startedAt),
    completedAt: iso(completedAt),
  };
  if (rejected.length === 0) return body;
  body.errors = rejected.map(({ index, error }) =>
    standardError(error, { inputIndex: [String(index)], propertyName: [String(inputs[index]?.name)] }),
  );
  body.numErrors = rejected.length;
  return body;
}

/** The two types of a new association label, the forward one first (HubSpot's create answer). */
function associationLabelTypes(a: AssociationDefinition): AssociationLabelTypesView {
  return {
    results: [
      { category: 'USER_DEFINED', typeId: Number(a.id), label: a.label! },
      { category: 'USER_DEFINED', typeId: Number(a.inverseId), label: a.inverseLabel! },
    ],
  };
}
