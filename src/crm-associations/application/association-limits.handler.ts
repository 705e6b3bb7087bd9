import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { unknownAssociationType } from '../domain/association-errors';
import { associationLimitsDecider, associationLimitsStream } from '../domain/association-limits.decider';
import { AssociationsQueries } from '../crm-associations.queries';
import type { BatchOutcome, RefusedInput } from './crm-associations.handler';

export interface LimitInput {
  category: string;
  typeId: number;
  maxToObjectIds?: number;
}

export interface AssociationLimitsRequest {
  type: 'CreateAssociationLimits' | 'UpdateAssociationLimits' | 'RemoveAssociationLimits';
  hubId: number;
  fromType: string;
  toType: string;
  inputs: LimitInput[];
}

/** The inputs that were stored (as given), and the refused ones. */
export class AssociationLimitsCommand extends Command<BatchOutcome<LimitInput>> {
  constructor(
    readonly request: AssociationLimitsRequest,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Definition configurations (`maxToObjectIds` per association type of a pair) on the account's
 * `crm.association-limits-{hubId}` stream, each input decided on its own; answers once the read
 * model holds them (the association writes read the limits from it).
 */
@CommandHandler(AssociationLimitsCommand)
export class AssociationLimitsHandler implements ICommandHandler<AssociationLimitsCommand> {
  private readonly limits;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runner: ProjectionRunner,
    private readonly queries: AssociationsQueries,
  ) {
    this.limits = streams.forDecider(associationLimitsDecider);
  }

  async execute({ request, context }: AssociationLimitsCommand): Promise<BatchOutcome<LimitInput>> {
    const { hubId, fromType, toType } = request;
    const results: LimitInput[] = [];
    const refused: RefusedInput[] = [];
    let last = 0;
    for (const [index, input] of request.inputs.entries()) {
      try {
        const type = this.queries.catalogueOf(hubId).find(fromType, toType, input.typeId, input.category);
        if (!type) throw unknownAssociationType(fromType, toType, input.category, input.typeId);
        const key = {
          fromObjectTypeId: fromType,
          toObjectTypeId: toType,
          category: type.category,
          typeId: type.typeId,
        };
        const now = this.clock.now();
        const command =
          request.type === 'RemoveAssociationLimits'
            ? { type: 'RemoveAssociationLimit' as const, hubId, key, now }
            : {
                type:
                  request.type === 'CreateAssociationLimits'
                    ? ('CreateAssociationLimit' as const)
                    : ('UpdateAssociationLimit' as const),
                hubId,
                key,
                now,
                maxToObjectIds: input.maxToObjectIds ?? NaN,
              };
        const { position } = await this.limits.handle(associationLimitsStream(hubId), command, context);
        last = Math.max(last, position);
        results.push(input);
      } catch (error) {
        if (!(error instanceof Error) || error.name !== 'HubSpotError') throw error;
        refused.push({ index, error: error as RefusedInput['error'] });
      }
    }
    if (last > 0) await this.runner.readModelsReached(last);
    return { results, refused };
  }
}
