import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DirectoryQueries } from '../../directory/directory.queries';
import { CLOCK, type Clock } from '../../platform/clock';
import { EventStreams } from '../../platform/commands/event-streams';
import type { CommandContext } from '../../platform/events/envelope';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { answerAfterCommit, type ReadModel } from '../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { PipelinesQueries, type PipelineStageView, type PipelineView } from '../crm-pipelines.queries';
import { pipelinesStream } from '../domain/pipeline-events';
import { type PipelinesCommand, pipelinesDecider } from '../domain/pipelines.decider';
import { CrmPipelinesProjection } from '../projections/crm-pipelines.projection';

/** A pipelines command as the bus carries it: the decider's command without the facts the handler adds. */
export type PipelinesRequest = PipelinesCommand extends infer C
  ? C extends PipelinesCommand
    ? Omit<C, 'facts'> & { userId: number | null }
    : never
  : never;

interface Answers {
  CreatePipeline: PipelineView;
  ReplacePipeline: PipelineView;
  UpdatePipeline: PipelineView;
  ArchivePipeline: void;
  CreatePipelineStage: PipelineStageView;
  ReplacePipelineStage: PipelineStageView;
  UpdatePipelineStage: PipelineStageView;
  ArchivePipelineStage: void;
}

/**
 * The one bus command of pipelines: any request of the decider's vocabulary (the `type` says
 * which), handled by CrmPipelinesHandler, as the records module does.
 */
export class CrmPipelinesCommand<R extends PipelinesRequest = PipelinesRequest> extends Command<Answers[R['type']]> {
  constructor(
    readonly request: R,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Binds the pipelines decider to `crm.pipelines-{hubId}-{objectTypeId}`; adds the facts the edge
 * knows (the time, the account's tier, the records per stage when a delete must validate usages)
 * and answers from the read model after commit.
 */
@CommandHandler(CrmPipelinesCommand)
export class CrmPipelinesHandler implements ICommandHandler<CrmPipelinesCommand> {
  private readonly pipelines;
  private readonly readModel: ReadModel<PipelinesQueries>;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly queries: PipelinesQueries,
    private readonly directory: DirectoryQueries,
    projection: CrmPipelinesProjection,
  ) {
    this.pipelines = streams.forDecider(pipelinesDecider);
    this.readModel = { projection, shared: queries, over: (db) => new PipelinesQueries(db) };
  }

  async execute({ request, context }: CrmPipelinesCommand): Promise<Answers[keyof Answers]> {
    const { userId, ...rest } = request;
    const validates = 'validateUsages' in rest && rest.validateUsages;
    const pipelineId = 'pipelineId' in rest ? rest.pipelineId : undefined;
    const command = {
      ...rest,
      facts: {
        now: this.clock.now(),
        userId,
        tier: this.directory.getAccount(request.hubId)?.tier ?? 'free',
        stageUsage:
          validates && pipelineId !== undefined
            ? this.queries.stageUsage(request.hubId, request.objectTypeId, pipelineId)
            : {},
      },
    } as PipelinesCommand;
    const stream = pipelinesStream(request.hubId, request.objectTypeId);
    const { events, position } = await this.pipelines.handle(stream, command, context);
    const committed = { runner: this.runner, store: this.store, position, streams: [stream] };
    const { hubId, objectTypeId } = request;
    switch (command.type) {
      case 'ArchivePipeline':
      case 'ArchivePipelineStage':
        if (position > 0) await this.runner.readModelsReached(position);
        return undefined;
      case 'CreatePipeline':
      case 'ReplacePipeline':
      case 'UpdatePipeline': {
        const first = events[0];
        const id =
          first && 'pipeline' in first.data ? first.data.pipeline.id : (command as { pipelineId: string }).pipelineId;
        return answerAfterCommit(committed, this.readModel, (q) => q.get(hubId, objectTypeId, id, true));
      }
      case 'CreatePipelineStage':
      case 'ReplacePipelineStage':
      case 'UpdatePipelineStage': {
        const first = events[0];
        const stageId = first && 'stage' in first.data ? first.data.stage.id : (command as { stageId: string }).stageId;
        return answerAfterCommit(committed, this.readModel, (q) =>
          q.stage(hubId, objectTypeId, command.pipelineId, stageId, true),
        );
      }
    }
  }
}
