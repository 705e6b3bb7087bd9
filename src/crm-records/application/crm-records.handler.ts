import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CrmAssociationsCommand } from '../../crm-associations';
import { AssociationsQueries } from '../../crm-associations/crm-associations.queries';
import { PipelinesQueries } from '../../crm-pipelines/crm-pipelines.queries';
import { CLOCK, type Clock, InstallClocks } from '../../platform/clock';
import { fold } from '../../platform/commands/decider';
import { EventStreams } from '../../platform/commands/event-streams';
import { DEFAULT_RETRY_POLICY, retryOnConflict } from '../../platform/commands/retry-policy';
import { eventTypes } from '../../platform/events/event-type-registry';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import type { CommandContext } from '../../platform/events/envelope';
import { answerAfterCommit, type ReadModel } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import type { PropertyRules } from '../domain/property-values';
import {
  ADDITIONAL_EMAILS,
  checkedValues,
  emailsOf,
  isLive,
  MERGED_IDS,
  recordDecider,
  type RecordState,
} from '../domain/record.decider';
import {
  associationTargetsNotFound,
  cannotMergeIntoItself,
  contactAlreadyExists,
  invalidCreateAssociationType,
  mixedCreateAssociationTargets,
  notAUniqueProperty,
  propertyValuesNotValid,
  recordNotFound,
  uniqueValueTaken,
} from '../domain/record-errors';
import { type RecordEvent, recordStream, uniqueValueStream, type WriteSource } from '../domain/record-events';
import { recordTypeTraits, uniqueValueKey } from '../domain/record-types';
import { type ClaimUniqueValue, uniqueValueClaimDecider } from '../domain/unique-value-claim.decider';
import { CrmRecordsProjection } from '../projections/crm-records.projection';
import {
  type BatchArchiveRecords,
  type BatchCreateRecords,
  type BatchUpdateRecords,
  type BatchUpsertRecords,
  type CreateAssociation,
  type MergeRecords,
  type RestoreRecordRequest,
  CrmRecordsCommand,
  type CrmRecordsAnswers,
  type RecordBatchView,
  type StandardErrorView,
  type UpsertedRecordView,
} from './crm-records.commands';
import { CrmRecordsQueries, type RecordView } from './crm-records.queries';
import { type CeilingRoom, RecordCeilings } from './record-ceilings';
import { RecordIds } from './record-ids';
import { RecordSchema, type RecordType } from './record-schema';

/**
 * A unique value's claim whose record has not appeared after this long was left by a create that
 * never completed (the process stopped between the claim and the record): the value is free again.
 */
export const ORPHANED_CLAIM_AFTER_MS = 30_000;

/** A create's association with its target type found: made once the record is stored. */
interface PlannedAssociation {
  toType: string;
  toId: number;
  types: Array<{ category: string; typeId: number }>;
}

/** One record written by a command: where, and what a read of it shows. */
interface Written {
  id: number;
  position: number;
  shown: readonly string[];
  new?: boolean;
}

/** A record id from a path or an input: HubSpot's ids are numeric; anything else names no record. */
export function parseRecordId(raw: string): number | null {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/**
 * The one handler of CRM records writes. Single-record writes are the record decider's commands
 * with the facts added here (the object type resolved, a fresh id, the account's property rules,
 * the time); a batch runs them per record and reports the inputs that failed. Unique values (a
 * contact's e-mail) are claimed on their own streams before the record is written, so of two
 * records with one e-mail exactly one is stored. Answers come from the read model after commit.
 */
@CommandHandler(CrmRecordsCommand)
export class CrmRecordsHandler implements ICommandHandler<CrmRecordsCommand> {
  private readonly records;
  private readonly claims;
  private readonly readModel: ReadModel<CrmRecordsQueries>;

  constructor(
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    projection: CrmRecordsProjection,
    queries: CrmRecordsQueries,
    private readonly schema: RecordSchema,
    private readonly ids: RecordIds,
    private readonly pipelines: PipelinesQueries,
    private readonly ceilings: RecordCeilings,
    private readonly commandBus: CommandBus,
    private readonly associations: AssociationsQueries,
    private readonly installClocks: InstallClocks,
  ) {
    this.records = streams.forDecider(recordDecider);
    this.claims = streams.forDecider(uniqueValueClaimDecider);
    this.readModel = { projection, shared: queries, over: (db) => new CrmRecordsQueries(db) };
  }

  async execute({ request, context }: CrmRecordsCommand): Promise<CrmRecordsAnswers[keyof CrmRecordsAnswers]> {
    const type = this.schema.resolve(request.hubId, request.objectType);
    switch (request.type) {
      case 'CreateRecord': {
        const rules = this.schema.rules(request.hubId, type);
        return this.withinCeiling(request.hubId, type, async (room) => {
          const written = await this.create(
            request.hubId,
            type,
            rules,
            request.properties,
            request.source,
            context,
            room,
            request.associations,
          );
          return this.answer(request.hubId, type, [written]).then(([view]) => view);
        });
      }
      case 'UpdateRecord': {
        const rules = this.schema.rules(request.hubId, type);
        const id = this.idOf(request.hubId, type, request.recordId, request.idProperty, rules);
        if (id === null) throw recordNotFound();
        const written = await this.update(request.hubId, type, rules, id, request.properties, request.source, context);
        return this.answer(request.hubId, type, [written]).then(([view]) => view);
      }
      case 'ArchiveRecord': {
        const id = parseRecordId(request.recordId);
        if (id !== null) await this.archive(request.hubId, type, id, request.source, context);
        return undefined;
      }
      case 'RestoreRecord':
        return this.withinCeiling(request.hubId, type, (room) => this.restore(request, type, room, context));
      case 'MergeRecords':
        return this.merge(request, type, context);
      case 'PurgeRecord': {
        const rules = this.schema.rules(request.hubId, type);
        // An archived record is GDPR-deleted too, also when named by a unique value.
        const id =
          this.idOf(request.hubId, type, request.recordId, request.idProperty, rules) ??
          (request.idProperty
            ? this.readModel.shared.idBy(request.hubId, type.objectTypeId, request.idProperty, request.recordId, true)
            : null);
        if (id !== null) await this.purge(request.hubId, type, id, context);
        return undefined;
      }
      case 'BatchCreateRecords':
        return this.batchCreate(request, type, context);
      case 'BatchUpdateRecords':
        return this.batchUpdate(request, type, context);
      case 'BatchUpsertRecords':
        return this.batchUpsert(request, type, context);
      case 'BatchArchiveRecords':
        return this.batchArchive(request, type, context);
    }
  }

  private async create(
    hubId: number,
    type: RecordType,
    rules: PropertyRules,
    properties: Record<string, string>,
    source: WriteSource,
    context: CommandContext,
    room: CeilingRoom,
    associations: readonly CreateAssociation[] = [],
  ): Promise<Written> {
    // Checked before anything is claimed, so a refused record leaves no claim behind.
    const values = checkedValues(hubId, properties, rules);
    this.checkPipelineStage(hubId, type, values, {});
    const planned = this.planAssociations(hubId, type, associations);
    // Taken synchronously, in input order: a batch past the ceiling keeps its first inputs.
    room.take();
    let stored = false;
    try {
      const id = await this.ids.next(hubId, context);
      await this.claimUniqueValues(hubId, type, rules, values, id, context, true);
      const { position } = await this.records.handleNew(
        recordStream(hubId, type.objectTypeId, id),
        {
          type: 'CreateRecord',
          hubId,
          objectType: type.objectTypeId,
          properties,
          source,
          facts: { objectTypeId: type.objectTypeId, id, rules, now: this.clock.now() },
        },
        context,
      );
      stored = true;
      if (planned.length > 0) await this.associate(hubId, type, id, position, planned, source, context);
      return { id, position, shown: shownAfterWrite(type, values) };
    } catch (error) {
      if (!stored) room.giveBack();
      throw error;
    }
  }

  /**
   * A create's associations checked before the record is written: each type must start at the
   * record's type (HubSpot's ids are directional, so the type names the target's type) and each
   * target must be a live record of the account, so a refused create leaves no record behind.
   */
  private planAssociations(
    hubId: number,
    type: RecordType,
    associations: readonly CreateAssociation[],
  ): PlannedAssociation[] {
    // Most creates have none: the catalogue is not built for them.
    if (associations.length === 0) return [];
    // HubSpot's types and the account's labels (USER_DEFINED).
    const catalogue = this.associations.catalogueOf(hubId);
    return associations.map(({ toId: raw, types }) => {
      const targets = new Set(
        types.map(({ category, typeId }) => {
          const found = catalogue.get(category, typeId);
          if (!found || found.fromObjectTypeId !== type.objectTypeId)
            throw invalidCreateAssociationType(type.objectTypeId, category, typeId);
          return found.toObjectTypeId;
        }),
      );
      if (targets.size !== 1) throw mixedCreateAssociationTargets();
      const [toType] = [...targets] as [string];
      const toId = parseRecordId(raw);
      if (toId === null || this.associations.missing(hubId, toType, [toId]).length > 0)
        throw associationTargetsNotFound(toType, [raw]);
      return { toType, toId, types };
    });
  }

  /**
   * The associations of a created record, through the associations module's command once its read
   * model holds the record (it checks both ends are live records). A target archived between the
   * check and this answers its error; the record stays (HubSpot's create is not atomic either).
   */
  private async associate(
    hubId: number,
    type: RecordType,
    id: number,
    position: number,
    planned: readonly PlannedAssociation[],
    source: WriteSource,
    context: CommandContext,
  ): Promise<void> {
    await this.runner.readModelsReached(position);
    for (const { toType, toId, types } of planned) {
      const outcome = await this.createAssociations(
        hubId,
        type,
        toType,
        [{ fromId: id, toId, types }],
        source,
        context,
      );
      if (outcome.refused.length > 0) throw outcome.refused[0]!.error;
    }
  }

  /** Runs creates within the account's record ceiling; their slots are given back once answered. */
  private async withinCeiling<T>(hubId: number, type: RecordType, run: (room: CeilingRoom) => Promise<T>): Promise<T> {
    const room = this.ceilings.open(hubId, type);
    try {
      return await run(room);
    } finally {
      room.close();
    }
  }

  private async update(
    hubId: number,
    type: RecordType,
    rules: PropertyRules,
    id: number,
    properties: Record<string, string>,
    source: WriteSource,
    context: CommandContext,
  ): Promise<Written> {
    const stream = recordStream(hubId, type.objectTypeId, id);
    const values = checkedValues(hubId, properties, rules);
    const { state } = await this.streams.load(stream, recordDecider);
    if (!isLive(state)) throw recordNotFound();
    this.checkPipelineStage(hubId, type, values, state.properties);
    await this.claimUniqueValues(hubId, type, rules, values, id, context);
    const { position } = await this.records.handle(
      stream,
      {
        type: 'UpdateRecord',
        hubId,
        objectType: type.objectTypeId,
        recordId: String(id),
        properties,
        source,
        facts: { objectTypeId: type.objectTypeId, id, rules, now: this.clock.now() },
      },
      context,
    );
    return { id, position, shown: shownAfterWrite(type, values) };
  }

  /**
   * Hook for pipelines: a deal's `pipeline`/`dealstage` (a ticket's `hs_pipeline`/`hs_pipeline_stage`)
   * must name a pipeline of the account and one of its stages; the pipelines module answers.
   */
  private checkPipelineStage(
    hubId: number,
    type: RecordType,
    values: Readonly<Record<string, string>>,
    current: Readonly<Record<string, string>>,
  ): void {
    const problem = this.pipelines.recordStageProblem(hubId, type.objectTypeId, values, current);
    if (problem) throw propertyValuesNotValid(hubId, [problem]);
  }

  private async archive(hubId: number, type: RecordType, id: number, source: WriteSource, context: CommandContext) {
    const { position } = await this.records.handle(
      recordStream(hubId, type.objectTypeId, id),
      {
        type: 'ArchiveRecord',
        hubId,
        objectType: type.objectTypeId,
        recordId: String(id),
        source,
        facts: { objectTypeId: type.objectTypeId, id, now: this.clock.now() },
      },
      context,
    );
    if (position > 0) await this.runner.readModelsReached(position);
  }

  /**
   * HubSpot's restore: the archived record is live again under its id, with its values. Its unique
   * values are claimed back first, so another live record holding its e-mail now refuses the
   * restore (HubSpot's 409 text); a claim taken by another record between that and the restore (the
   * record was still archived, so the claim could move) is found afterwards and the record archived
   * again. A restore counts against the record ceiling as a create does.
   */
  private async restore(
    request: RestoreRecordRequest,
    type: RecordType,
    room: CeilingRoom,
    context: CommandContext,
  ): Promise<RecordView> {
    const { hubId } = request;
    const id = parseRecordId(request.recordId);
    if (id === null) throw recordNotFound();
    const stream = recordStream(hubId, type.objectTypeId, id);
    const now =
      request.installAppId !== undefined ? this.installClocks.nowFor(request.installAppId, hubId) : this.clock.now();
    const command = {
      type: 'RestoreRecord' as const,
      hubId,
      objectType: type.objectTypeId,
      recordId: String(id),
      source: request.source,
      facts: { objectTypeId: type.objectTypeId, id, now },
    };
    const { state } = await this.streams.load(stream, recordDecider);
    // Refused (unknown, merged, past the window) before any claim is made; a live record is answered as it is.
    const decided = recordDecider.decide(command, state);
    if (decided.length === 0) return this.answerOne(hubId, type, id, 0, state);
    room.take();
    let restored = false;
    try {
      const rules = this.schema.rules(hubId, type);
      const unique = this.uniqueValuesOf(type, rules, state);
      for (const values of unique) await this.claimUniqueValues(hubId, type, rules, values, id, context);
      const { position } = await this.records.handle(stream, command, context);
      restored = true;
      await this.keepClaimsOrArchive(hubId, type, id, unique, request.source, context);
      return await this.answerOne(hubId, type, id, position, state);
    } catch (error) {
      if (!restored) room.giveBack();
      throw error;
    }
  }

  /** A record's unique values, one claim each (a contact's additional e-mails too). */
  private uniqueValuesOf(type: RecordType, rules: PropertyRules, state: RecordState): Record<string, string>[] {
    const own = Object.entries(state.properties)
      .filter(([name, value]) => rules.get(name)?.unique && value !== '')
      .map(([name, value]) => ({ [name]: value }));
    const email = (state.properties.email ?? '').trim().toLowerCase();
    const additional = emailsOf(state.properties)
      .filter((e) => e !== email)
      .map((e) => ({ email: e }));
    return [...own, ...(rules.get('email')?.unique ? additional : [])];
  }

  /**
   * After a restore: every claim of the record's unique values must still name it. One that moved
   * to another record meanwhile (it was archived until the restore) undoes the restore: the record
   * is archived again and the restore answers that record's conflict.
   */
  private async keepClaimsOrArchive(
    hubId: number,
    type: RecordType,
    id: number,
    unique: readonly Record<string, string>[],
    source: WriteSource,
    context: CommandContext,
  ): Promise<void> {
    for (const values of unique) {
      for (const [property, value] of Object.entries(values)) {
        const key = uniqueValueKey(property, value);
        const { state } = await this.streams.load(
          this.claimStream(hubId, type, property, key),
          uniqueValueClaimDecider,
        );
        if (state.holder === null || state.holder === id) continue;
        await this.archive(hubId, type, id, source, context);
        throw type.objectTypeId === '0-1' && property === 'email'
          ? contactAlreadyExists(state.holder)
          : uniqueValueTaken(property, state.holder);
      }
    }
  }

  /** One record as the read model shows it once it holds `position` (its type's defaults and the values it has). */
  private async answerOne(
    hubId: number,
    type: RecordType,
    id: number,
    position: number,
    state: RecordState,
  ): Promise<RecordView> {
    const [view] = await this.answer(hubId, type, [{ id, position, shown: shownAfterWrite(type, state.properties) }]);
    return view!;
  }

  /**
   * Merges `objectIdToMerge` into `primaryObjectId`, in HubSpot's order of effect: the merged record
   * first stops taking writes (RecordMerged), its unique values the primary lacks are claimed for
   * the primary, then the primary takes its values where it has none. Answers the primary.
   */
  private async merge(request: MergeRecords, type: RecordType, context: CommandContext): Promise<RecordView> {
    const { hubId } = request;
    const primaryId = parseRecordId(request.primaryObjectId);
    const mergedId = parseRecordId(request.objectIdToMerge);
    if (primaryId === null || mergedId === null) throw recordNotFound();
    if (primaryId === mergedId) throw cannotMergeIntoItself();
    const primaryStream = recordStream(hubId, type.objectTypeId, primaryId);
    const { state: primary } = await this.streams.load(primaryStream, recordDecider);
    if (!isLive(primary)) throw recordNotFound();
    const facts = (id: number) => ({ objectTypeId: type.objectTypeId, id, now: this.clock.now() });
    const { state: merged } = await this.records.handle(
      recordStream(hubId, type.objectTypeId, mergedId),
      {
        type: 'MergeRecordInto',
        hubId,
        objectType: type.objectTypeId,
        recordId: String(mergedId),
        primaryId,
        source: request.source,
        facts: facts(mergedId),
      },
      context,
    );
    const taken = Object.fromEntries(
      Object.entries(merged.properties).filter(([name]) => primary.properties[name] === undefined),
    );
    const rules = this.schema.rules(hubId, type);
    await this.claimUniqueValues(hubId, type, rules, taken, primaryId, context);
    // The merged contact's e-mails the primary keeps as additional ones stay claimed: for the primary.
    const ownEmail = (primary.properties.email ?? '').trim().toLowerCase();
    const takenEmail = (taken.email ?? '').trim().toLowerCase();
    for (const email of emailsOf(merged.properties).filter((e) => e !== ownEmail && e !== takenEmail))
      await this.claimUniqueValues(hubId, type, rules, { email }, primaryId, context);
    const { position } = await this.records.handle(
      primaryStream,
      {
        type: 'AbsorbMergedRecord',
        hubId,
        objectType: type.objectTypeId,
        recordId: String(primaryId),
        mergedId,
        mergedProperties: merged.properties,
        source: request.source,
        facts: facts(primaryId),
      },
      context,
    );
    await this.moveAssociations(hubId, type, mergedId, primaryId, request.source, context);
    const [view] = await this.answer(hubId, type, [
      {
        id: primaryId,
        position,
        shown: [...shownAfterWrite(type, { ...primary.properties, ...taken }), MERGED_IDS, ADDITIONAL_EMAILS],
      },
    ]);
    return view!;
  }

  /** Associations from records of `type` to records of `toType`, through the associations module's command. */
  private createAssociations(
    hubId: number,
    type: RecordType,
    toType: string,
    inputs: Array<{ fromId: number; toId: number; types: Array<{ category: string; typeId: number }> }>,
    source: WriteSource,
    context: CommandContext,
  ) {
    return this.commandBus.execute(
      new CrmAssociationsCommand(
        {
          type: 'BatchCreateAssociations',
          hubId,
          fromType: type.objectTypeId,
          toType,
          appId: source.appId,
          userId: source.userId,
          inputs,
        },
        context,
      ),
    );
  }

  /**
   * HubSpot moves the merged record's associations to the primary (deduplicated): each through the
   * associations module's command, from the primary, so each is its pair's own event (audit trail,
   * `associationChange` webhooks) and a type the primary already has changes nothing. The primary's
   * own Primary labels win (a merged record's Primary company does not take it from the primary),
   * an association with the primary itself is dropped, and one the primary's limits refuse is left
   * behind (HubSpot's documentation says nothing of limits here). The merged record's pairs stay on
   * their streams, shown nowhere (it is no live record). The associations module's batch answers
   * once its read model holds them.
   */
  private async moveAssociations(
    hubId: number,
    type: RecordType,
    mergedId: number,
    primaryId: number,
    source: WriteSource,
    context: CommandContext,
  ): Promise<void> {
    const catalogue = this.associations.catalogueOf(hubId);
    const byTarget = new Map<
      string,
      { toType: string; toId: number; types: Array<{ category: string; typeId: number }> }
    >();
    for (const row of this.associations.associationsOf(hubId, type.objectTypeId, mergedId)) {
      if (row.toType === type.objectTypeId && row.toId === primaryId) continue;
      const known = catalogue.get(row.category, row.typeId);
      if (!known) continue;
      const primaryHolds =
        known.maxToObjectIds === 1 &&
        this.associations
          .holdersOfType(hubId, type.objectTypeId, primaryId, row.toType, row.category, row.typeId)
          .some((id) => id !== row.toId);
      if (primaryHolds) continue;
      const key = `${row.toType}/${row.toId}`;
      const target = byTarget.get(key) ?? { toType: row.toType, toId: row.toId, types: [] };
      target.types.push({ category: row.category, typeId: row.typeId });
      byTarget.set(key, target);
    }
    const byType = new Map<string, Array<{ toId: number; types: Array<{ category: string; typeId: number }> }>>();
    for (const { toType, ...target } of byTarget.values()) byType.set(toType, [...(byType.get(toType) ?? []), target]);
    for (const [toType, targets] of byType) {
      const inputs = targets.map((t) => ({ fromId: primaryId, toId: t.toId, types: t.types }));
      await this.createAssociations(hubId, type, toType, inputs, source, context);
    }
  }

  /**
   * GDPR delete: RecordPurged appended to the record's stream while the store's retention port
   * removes every earlier event of it in the same append (SQLite: one transaction; EventStoreDB:
   * the stream truncated first), so neither the store nor a rebuilt read model keeps a value of it.
   */
  private async purge(hubId: number, type: RecordType, id: number, context: CommandContext): Promise<void> {
    const stream = recordStream(hubId, type.objectTypeId, id);
    const { position } = await retryOnConflict(stream, DEFAULT_RETRY_POLICY, async () => {
      const recorded = await this.store.readStream(stream);
      const state = fold(
        recordDecider.evolve,
        recordDecider.initialState(),
        eventTypes.decodeStream<RecordEvent>(recorded),
      );
      const events = recordDecider.decide(
        {
          type: 'PurgeRecord',
          hubId,
          objectType: type.objectTypeId,
          recordId: String(id),
          source: { appId: null, userId: null },
          facts: { objectTypeId: type.objectTypeId, id, now: this.clock.now() },
        },
        state,
      );
      if (events.length === 0) return { position: 0 };
      const last = recorded[recorded.length - 1]!;
      return this.streams.appendRemovingArchived(stream, events, last.revision, context, {
        purge: recorded.map((e) => ({ position: e.position, eventId: e.metadata.eventId, streamId: stream })),
        streams: [{ streamId: stream, lastRevision: last.revision }],
      });
    });
    if (position > 0) await this.runner.readModelsReached(position);
  }

  /**
   * Claims each unique value of `values` for record `id`. A claim held by a record that no longer
   * holds the value (archived, changed, or never stored: its id is voided first, so a create
   * still under way cannot complete) moves to this record; a live holder is HubSpot's 409.
   */
  private async claimUniqueValues(
    hubId: number,
    type: RecordType,
    rules: PropertyRules,
    values: Record<string, string>,
    id: number,
    context: CommandContext,
    creating = false,
  ): Promise<void> {
    for (const property in values) {
      const value = values[property]!;
      if (!rules.get(property)?.unique || value === '') continue;
      const key = uniqueValueKey(property, value);
      const stream = this.claimStream(hubId, type, property, key);
      const command = (takeOver?: number): ClaimUniqueValue => {
        const claim: ClaimUniqueValue = {
          type: 'ClaimUniqueValue',
          hubId,
          objectTypeId: type.objectTypeId,
          property,
          id,
          now: this.clock.now(),
        };
        if (takeOver !== undefined) claim.takeOver = takeOver;
        return claim;
      };
      const claim = (takeOver?: number) => this.claims.handle(stream, command(takeOver), context);
      try {
        // A create's values are usually claimed for the first time: no read of the claim stream
        // unless it exists (then the same load-decide-append as an update's claim).
        await (creating ? this.claims.handleProbablyNew(stream, command(), context) : claim());
      } catch (error) {
        if (!(error instanceof HubSpotError) || error.httpStatus !== 409) throw error;
        const { state } = await this.streams.load(stream, uniqueValueClaimDecider);
        const { holder, claimedAt } = state;
        if (holder === null || (await this.holds(hubId, type, { holder, claimedAt }, property, key, context)))
          throw error;
        await claim(holder);
      }
    }
  }

  private claimStream(hubId: number, type: RecordType, property: string, key: string): string {
    return uniqueValueStream(hubId, type.objectTypeId, property, key);
  }

  /**
   * Whether record `holder`, which claimed the value at `claimedAt`, still holds it: it does while
   * its record has the value, and while its create may still be under way (a claim younger than
   * ORPHANED_CLAIM_AFTER_MS with no record yet). An older claim without a record was left by a
   * create that never completed: its id is voided (so that create can never complete) and the
   * value is free.
   */
  private async holds(
    hubId: number,
    type: RecordType,
    claim: { holder: number; claimedAt: number },
    property: string,
    key: string,
    context: CommandContext,
  ): Promise<boolean> {
    const stream = recordStream(hubId, type.objectTypeId, claim.holder);
    let { state } = await this.streams.load(stream, recordDecider);
    if (!state.exists && !state.voided && !state.purged) {
      if (this.clock.now() - claim.claimedAt < ORPHANED_CLAIM_AFTER_MS) return true;
      ({ state } = await this.records.handle(
        stream,
        {
          type: 'VoidRecordId',
          hubId,
          facts: { objectTypeId: type.objectTypeId, id: claim.holder, now: this.clock.now() },
          source: { appId: null, userId: null },
        },
        context,
      ));
    }
    if (!isLive(state)) return false;
    // A contact holds the e-mails of the contacts merged into it as well (hs_additional_emails).
    if (property === 'email') return emailsOf(state.properties).some((e) => uniqueValueKey(property, e) === key);
    return uniqueValueKey(property, state.properties[property] ?? '') === key;
  }

  /** The record a path or input names: its numeric id, or the value of a unique `idProperty`. */
  private idOf(
    hubId: number,
    type: RecordType,
    raw: string,
    idProperty: string | undefined,
    rules: PropertyRules,
  ): number | null {
    if (idProperty === undefined || idProperty === '' || idProperty === 'hs_object_id') return parseRecordId(raw);
    if (!rules.get(idProperty)?.unique) throw notAUniqueProperty(idProperty);
    return this.readModel.shared.idBy(hubId, type.objectTypeId, idProperty, raw, false);
  }

  /** The written records as the read model shows them once it holds their events. */
  private answer(hubId: number, type: RecordType, written: readonly Written[]): Promise<RecordView[]> {
    if (written.length === 0) return Promise.resolve([]);
    const position = Math.max(...written.map((w) => w.position));
    return answerAfterCommit(
      {
        runner: this.runner,
        store: this.store,
        position,
        streams: written.map((w) => recordStream(hubId, type.objectTypeId, w.id)),
      },
      this.readModel,
      (queries) => {
        const views = written.map((w) => queries.get(hubId, type.objectTypeId, w.id, false, { properties: w.shown }));
        return views.every((v) => v !== null) ? (views as RecordView[]) : null;
      },
    );
  }

  private async batchCreate(request: BatchCreateRecords, type: RecordType, context: CommandContext) {
    const startedAt = this.clock.now();
    const rules = this.schema.rules(request.hubId, type);
    return this.withinCeiling(request.hubId, type, async (room) => {
      const outcomes = await Promise.allSettled(
        request.inputs.map((input) =>
          this.create(request.hubId, type, rules, input.properties, request.source, context, room, input.associations),
        ),
      );
      return this.batchAnswer(request.hubId, type, outcomes, startedAt) as Promise<RecordBatchView>;
    });
  }

  private async batchUpdate(request: BatchUpdateRecords, type: RecordType, context: CommandContext) {
    const startedAt = this.clock.now();
    const rules = this.schema.rules(request.hubId, type);
    const outcomes = await Promise.allSettled(
      request.inputs.map(async (input) => {
        const id = this.idOf(request.hubId, type, input.id, input.idProperty, rules);
        if (id === null) throw recordNotFound();
        return this.update(request.hubId, type, rules, id, input.properties, request.source, context);
      }),
    );
    return this.batchAnswer(request.hubId, type, outcomes, startedAt, (i) => ({
      id: [request.inputs[i]!.id],
    })) as Promise<RecordBatchView>;
  }

  /** Each input's unique value resolves through its claim: its live holder is updated, else a record is created with it. */
  private async batchUpsert(request: BatchUpsertRecords, type: RecordType, context: CommandContext) {
    const startedAt = this.clock.now();
    const rules = this.schema.rules(request.hubId, type);
    for (const input of request.inputs) {
      if (input.idProperty !== 'hs_object_id' && !rules.get(input.idProperty)?.unique)
        throw notAUniqueProperty(input.idProperty);
    }
    return this.withinCeiling(request.hubId, type, async (room) => {
      const outcomes = await Promise.allSettled(
        request.inputs.map(async (input): Promise<Written> => {
          const holder = await this.holderOf(request.hubId, type, input.idProperty, input.id, context);
          if (holder !== null) {
            const written = await this.update(
              request.hubId,
              type,
              rules,
              holder,
              input.properties,
              request.source,
              context,
            );
            return { ...written, new: false };
          }
          if (input.idProperty === 'hs_object_id') throw recordNotFound();
          const properties = { ...input.properties, [input.idProperty]: input.id };
          const written = await this.create(request.hubId, type, rules, properties, request.source, context, room);
          return { ...written, new: true };
        }),
      );
      return this.batchAnswer(request.hubId, type, outcomes, startedAt, (i) => ({
        id: [request.inputs[i]!.id],
      })) as Promise<RecordBatchView<UpsertedRecordView>>;
    });
  }

  /** The live record holding a unique value, through the value's claim stream; null when none does. */
  private async holderOf(
    hubId: number,
    type: RecordType,
    property: string,
    value: string,
    context: CommandContext,
  ): Promise<number | null> {
    if (property === 'hs_object_id') {
      const id = parseRecordId(value);
      if (id === null) return null;
      const { state } = await this.streams.load(recordStream(hubId, type.objectTypeId, id), recordDecider);
      return isLive(state) ? id : null;
    }
    const key = uniqueValueKey(property, value);
    const { state } = await this.streams.load(this.claimStream(hubId, type, property, key), uniqueValueClaimDecider);
    const { holder, claimedAt } = state;
    if (holder === null) return null;
    return (await this.holds(hubId, type, { holder, claimedAt }, property, key, context)) ? holder : null;
  }

  private async batchArchive(request: BatchArchiveRecords, type: RecordType, context: CommandContext) {
    await Promise.all(
      request.inputs.map(async ({ id: raw }) => {
        const id = parseRecordId(raw);
        if (id !== null) await this.archive(request.hubId, type, id, request.source, context);
      }),
    );
    return undefined;
  }

  private async batchAnswer(
    hubId: number,
    type: RecordType,
    outcomes: PromiseSettledResult<Written>[],
    startedAt: number,
    contextOf: (index: number) => Record<string, string[]> = () => ({}),
  ): Promise<RecordBatchView<RecordView | UpsertedRecordView>> {
    const written: Written[] = [];
    const errors: StandardErrorView[] = [];
    outcomes.forEach((o, index) => {
      if (o.status === 'fulfilled') written.push(o.value);
      else if (o.reason instanceof HubSpotError) errors.push(standardError(o.reason, index, contextOf(index)));
      else throw o.reason;
    });
    const views = await this.answer(hubId, type, written);
    const results = views.map((v, i) => (written[i]!.new === undefined ? v : { ...v, new: written[i]!.new! }));
    const body: RecordBatchView<RecordView | UpsertedRecordView> = {
      status: 'COMPLETE',
      results,
      startedAt: new Date(startedAt).toISOString(),
      completedAt: new Date(this.clock.now()).toISOString(),
    };
    if (errors.length > 0) {
      body.errors = errors;
      body.numErrors = errors.length;
    }
    return body;
  }
}

/** shownAfterWrite's lists by type and written names (a batch's inputs usually name the same ones). */
const shownLists = new Map<string, readonly string[]>();

/**
 * What the answer to a write shows: the type's default properties and the ones written, sorted as a
 * view lists them (so the view takes the list as it is), made once for every write naming the same.
 */
function shownAfterWrite(type: RecordType, values: Record<string, string>): readonly string[] {
  // Property names are [a-z0-9_] (the schema module's rule): a space cannot be part of one.
  let key = type.objectTypeId;
  for (const name in values) key += ` ${name}`;
  let shown = shownLists.get(key);
  if (shown === undefined) {
    if (shownLists.size >= 256) shownLists.clear();
    const names = new Set([...recordTypeTraits(type.objectTypeId).defaultProperties, ...Object.keys(values)]);
    shown = Object.freeze([...names].sort());
    shownLists.set(key, shown);
  }
  return shown;
}

/** One refused input as HubSpot's StandardError; `context` says which input. */
export function standardError(
  error: HubSpotError,
  index: number,
  context: Record<string, string[]>,
): StandardErrorView {
  const details = error.extras.errors ?? [];
  return {
    status: 'error',
    category: error.category,
    // HubSpot's StandardError types `subCategory` as an object; the text goes on the error detail.
    message: error.message,
    context: { ...error.extras.context, ...context, inputIndex: [String(index)] },
    errors: details.length > 0 ? details : [{ message: error.message, code: error.category }],
    links: {},
  };
}
