import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import type { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { answerAfterCommit, type ReadModel } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { AssociationsQueries, type AssociationTypeView } from '../crm-associations.queries';
import { associationDecider, type UsageFacts } from '../domain/association.decider';
import { noDefaultType, recordsNotFound, unknownAssociationType } from '../domain/association-errors';
import { associationStream, orderedPair, type RecordRef, type StoredType } from '../domain/association-events';
import type { AssociationType } from '../domain/association-types';
import { CrmAssociationsProjection } from '../projections/crm-associations.projection';

/** A type as a request names it (HubSpot's AssociationSpec). */
export interface TypeSpec {
  category: string;
  typeId: number;
}

export interface PairInput {
  fromId: number;
  toId: number;
  types: TypeSpec[];
}

interface Scope {
  hubId: number;
  /** Object type ids, resolved by the controller. */
  fromType: string;
  toType: string;
  appId: number | null;
  userId: number | null;
}

export type AssociationsRequest = Scope &
  (
    | { type: 'CreateAssociation'; input: PairInput }
    | { type: 'CreateDefaultAssociations'; inputs: Array<{ fromId: number; toId: number }> }
    | { type: 'BatchCreateAssociations'; inputs: PairInput[] }
    | { type: 'ArchiveAssociations'; inputs: Array<{ fromId: number; toIds: number[] }> }
    | { type: 'ArchiveAssociationLabels'; inputs: PairInput[] }
  );

/** HubSpot's LabelsBetweenObjectPair. */
export interface LabelsBetweenView {
  fromObjectTypeId: string;
  fromObjectId: string;
  toObjectTypeId: string;
  toObjectId: string;
  labels: string[];
}

/** HubSpot's PublicDefaultAssociation. */
export interface DefaultAssociationView {
  from: { id: string };
  to: { id: string };
  associationSpec: { associationCategory: string; associationTypeId: number };
}

/** One refused input of a batch (HubSpot's StandardError), with the input's index. */
export interface RefusedInput {
  index: number;
  error: HubSpotError;
}

export interface BatchOutcome<R> {
  results: R[];
  refused: RefusedInput[];
}

interface Answers {
  CreateAssociation: LabelsBetweenView;
  CreateDefaultAssociations: BatchOutcome<DefaultAssociationView>;
  BatchCreateAssociations: BatchOutcome<LabelsBetweenView>;
  ArchiveAssociations: BatchOutcome<never>;
  ArchiveAssociationLabels: BatchOutcome<never>;
}

/** The one bus command of associations (the `type` says which request), handled by CrmAssociationsHandler. */
export class CrmAssociationsCommand<R extends AssociationsRequest = AssociationsRequest> extends Command<
  Answers[R['type']]
> {
  constructor(
    readonly request: R,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Associations between records: each input decided on its record pair's own stream. The handler
 * adds the facts the decider cannot know: that both records are live records of the account (the
 * read model), the types the pair has (HubSpot's catalogue), how many associations the writing
 * record already holds (its ceilings). A Primary moves: the record's previous Primary pair loses
 * it first (HubSpot's behaviour), a named process over the two pair streams.
 */
@CommandHandler(CrmAssociationsCommand)
export class CrmAssociationsHandler implements ICommandHandler<CrmAssociationsCommand> {
  private readonly pairs;
  private readonly readModel: ReadModel<AssociationsQueries>;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly queries: AssociationsQueries,
    projection: CrmAssociationsProjection,
  ) {
    this.pairs = streams.forDecider(associationDecider);
    this.readModel = { projection, shared: queries, over: (db) => new AssociationsQueries(db) };
  }

  async execute({ request, context }: CrmAssociationsCommand): Promise<Answers[keyof Answers]> {
    switch (request.type) {
      case 'CreateAssociation': {
        const { position, stream } = await this.add(
          request,
          request.input,
          this.typesOf(request, request.input.types),
          context,
        );
        const { hubId, fromType, toType } = request;
        const { fromId, toId } = request.input;
        const committed = { runner: this.runner, store: this.store, position, streams: [stream] };
        return answerAfterCommit(committed, this.readModel, (q) =>
          labelsBetween(fromType, fromId, toType, toId, q.typesBetween(hubId, fromType, fromId, toType, toId)),
        );
      }
      case 'CreateDefaultAssociations': {
        const type = this.queries.catalogueOf(request.hubId).defaultOf(request.fromType, request.toType);
        if (!type) throw noDefaultType(request.fromType, request.toType);
        return this.batch(request.inputs, async (input) => {
          await this.add(request, input, [type], context);
          return {
            from: { id: String(input.fromId) },
            to: { id: String(input.toId) },
            associationSpec: { associationCategory: type.category, associationTypeId: type.typeId },
          };
        });
      }
      case 'BatchCreateAssociations': {
        const outcome = await this.batch(request.inputs, async (input) => {
          const types = this.typesOf(request, input.types);
          const { position } = await this.add(request, input, types, context);
          return { input, position };
        });
        await this.runner.readModelsReached(Math.max(0, ...outcome.results.map((r) => r.position)));
        const { hubId, fromType, toType } = request;
        return {
          refused: outcome.refused,
          results: outcome.results.map(({ input }) =>
            labelsBetween(
              fromType,
              input.fromId,
              toType,
              input.toId,
              this.queries.typesBetween(hubId, fromType, input.fromId, toType, input.toId),
            ),
          ),
        };
      }
      case 'ArchiveAssociations': {
        const pairs = request.inputs.flatMap((i) => i.toIds.map((toId) => ({ fromId: i.fromId, toId })));
        let last = 0;
        const outcome = await this.batch(pairs, async (p) => {
          last = Math.max(last, await this.remove(request, p.fromId, p.toId, 'all', context));
        });
        if (last > 0) await this.runner.readModelsReached(last);
        return { results: [], refused: outcome.refused };
      }
      case 'ArchiveAssociationLabels': {
        let last = 0;
        const outcome = await this.batch(request.inputs, async (input) => {
          const types = input.types.map((t) => this.typeOf(request, t));
          // Removing the unlabeled type removes the association itself (every label implies it).
          const whole = types.some((t) => t.label === null);
          last = Math.max(last, await this.remove(request, input.fromId, input.toId, whole ? 'all' : types, context));
        });
        if (last > 0) await this.runner.readModelsReached(last);
        return { results: [], refused: outcome.refused };
      }
    }
  }

  /** Each input on its own; a refused one is answered, the others stored. */
  private async batch<I, R>(inputs: readonly I[], each: (input: I) => Promise<R>): Promise<BatchOutcome<R>> {
    const results: R[] = [];
    const refused: RefusedInput[] = [];
    for (const [index, input] of inputs.entries()) {
      try {
        results.push(await each(input));
      } catch (error) {
        if (!isHubSpotError(error)) throw error;
        refused.push({ index, error });
      }
    }
    return { results, refused };
  }

  private typeOf(scope: Scope, spec: TypeSpec): AssociationType {
    const t = this.queries.catalogueOf(scope.hubId).find(scope.fromType, scope.toType, spec.typeId, spec.category);
    if (!t) throw unknownAssociationType(scope.fromType, scope.toType, spec.category, spec.typeId);
    return t;
  }

  /** The asked types, with the pair's unlabeled type a label implies. */
  private typesOf(scope: Scope, specs: readonly TypeSpec[]): AssociationType[] {
    const types = specs.map((s) => this.typeOf(scope, s));
    // HubSpot's unlabeled type of the pair, or a custom object schema's.
    const unlabeled = this.queries.catalogueOf(scope.hubId).defaultOf(scope.fromType, scope.toType);
    if (unlabeled && types.some((t) => t.label !== null) && !types.includes(unlabeled)) types.push(unlabeled);
    return types;
  }

  private refs(scope: Scope, fromId: number, toId: number) {
    const from: RecordRef = { objectTypeId: scope.fromType, id: fromId };
    const to: RecordRef = { objectTypeId: scope.toType, id: toId };
    return { from, to, ...orderedPair(from, to) };
  }

  private checkLive(scope: Scope, fromId: number, toId: number): void {
    const fromMissing = this.queries.missing(scope.hubId, scope.fromType, [fromId]);
    if (fromMissing.length > 0) throw recordsNotFound(scope.fromType, fromMissing.map(String));
    const toMissing = this.queries.missing(scope.hubId, scope.toType, [toId]);
    if (toMissing.length > 0) throw recordsNotFound(scope.toType, toMissing.map(String));
  }

  private async add(
    scope: Scope,
    pair: { fromId: number; toId: number },
    types: readonly AssociationType[],
    context: CommandContext,
  ): Promise<{ position: number; stream: string }> {
    this.checkLive(scope, pair.fromId, pair.toId);
    const { a, b, fromIsA } = this.refs(scope, pair.fromId, pair.toId);
    const { hubId, fromType, toType } = scope;
    const byType: UsageFacts['byType'] = {};
    for (const t of types) {
      const configured = this.queries.configuredLimit(hubId, fromType, toType, t.category, t.typeId);
      const limit = configured ?? t.maxToObjectIds;
      if (limit === undefined || t.label === null) continue;
      let holders = this.queries.holdersOfType(hubId, fromType, pair.fromId, toType, t.category, t.typeId);
      if (t.maxToObjectIds === 1 && configured === undefined) {
        // HubSpot moves a Primary: the previous holder's pair loses it.
        for (const old of holders.filter((id) => id !== pair.toId)) {
          await this.remove(scope, pair.fromId, old, [t], context);
        }
        holders = holders.filter((id) => id === pair.toId);
      }
      byType[`${t.category}:${t.typeId}`] = { usage: holders.length, limit };
    }
    const usage: UsageFacts = {
      pair: {
        usage: this.queries.countTo(hubId, fromType, pair.fromId, toType),
        limit: this.queries.pairLimit(hubId, fromType, toType),
      },
      byType,
    };
    const stored: StoredType[] = types.map((t) =>
      fromIsA
        ? { category: t.category, typeId: t.typeId, inverseTypeId: t.inverseTypeId }
        : { category: t.category, typeId: t.inverseTypeId, inverseTypeId: t.typeId },
    );
    const stream = associationStream(hubId, a, b);
    const { position } = await this.pairs.handle(
      stream,
      { type: 'AddAssociationTypes', hubId, a, b, fromIsA, types: stored, usage, facts: this.facts(scope) },
      context,
    );
    return { position, stream };
  }

  /** Removes types (as seen from `from`) or the whole association; answers the position (0: nothing changed). */
  private async remove(
    scope: Scope,
    fromId: number,
    toId: number,
    types: readonly AssociationType[] | 'all',
    context: CommandContext,
  ): Promise<number> {
    const { a, b, fromIsA } = this.refs(scope, fromId, toId);
    const stored =
      types === 'all'
        ? 'all'
        : types.map((t) =>
            fromIsA
              ? { category: t.category, typeId: t.typeId, inverseTypeId: t.inverseTypeId }
              : { category: t.category, typeId: t.inverseTypeId, inverseTypeId: t.typeId },
          );
    const { position } = await this.pairs.handle(
      associationStream(scope.hubId, a, b),
      { type: 'RemoveAssociationTypes', hubId: scope.hubId, a, b, types: stored, facts: this.facts(scope) },
      context,
    );
    return position;
  }

  private facts(scope: Scope) {
    return { now: this.clock.now(), appId: scope.appId, userId: scope.userId };
  }
}

function isHubSpotError(error: unknown): error is HubSpotError {
  return error instanceof Error && error.name === 'HubSpotError';
}

function labelsBetween(
  fromType: string,
  fromId: number,
  toType: string,
  toId: number,
  types: AssociationTypeView[],
): LabelsBetweenView {
  return {
    fromObjectTypeId: fromType,
    fromObjectId: String(fromId),
    toObjectTypeId: toType,
    toObjectId: String(toId),
    labels: types.flatMap((t) => (t.label ? [t.label] : [])),
  };
}
