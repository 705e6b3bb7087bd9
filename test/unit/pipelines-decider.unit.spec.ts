import { type PipelineEvent, PipelineEventType } from '../../src/crm-pipelines/domain/pipeline-events';
import { type PipelinesCommand, pipelinesDecider, seeded } from '../../src/crm-pipelines/domain/pipelines.decider';
import { fold } from '../../src/platform/commands/decider';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { DeciderSpecification } from '../support/decider-specification';

/** The pipelines decider, given/when/then: defaults without a write, ids, checks, usages. */
const spec = DeciderSpecification.for(pipelinesDecider);
const facts = { now: 1_000, userId: 7, tier: 'professional' as const, stageUsage: {} };
const base = { hubId: 1, objectTypeId: '0-3' as const, facts };
const scope = { hubId: 1, objectTypeId: '0-3', userId: 7, at: 1_000 };
const stage = (label: string, displayOrder: number, probability = '0.5') => ({
  label,
  displayOrder,
  metadata: { probability },
});

const created: PipelineEvent = {
  type: PipelineEventType.PipelineCreated,
  data: {
    ...scope,
    pipeline: {
      id: '100000001',
      label: 'Partners',
      displayOrder: 1,
      stages: [
        { id: '100000002', label: 'Lead', displayOrder: 0, metadata: { probability: '0.1', isClosed: 'false' } },
        { id: '100000003', label: 'Won', displayOrder: 1, metadata: { probability: '1.0', isClosed: 'true' } },
      ],
    },
  },
};

const isError = (status: number, code?: string) => (e: unknown) =>
  e instanceof HubSpotError &&
  e.httpStatus === status &&
  (code === undefined || e.extras.errors?.[0]?.code === code || e.extras.subCategory === code);

describe('pipelines decider', () => {
  it('before any event the state is HubSpot’s default pipeline of the type', () => {
    const deals = seeded(pipelinesDecider.initialState(), '0-3');
    expect(deals.map((p) => [p.id, p.stages.length, p.createdAt])).toEqual([['default', 7, 0]]);
    expect(seeded(pipelinesDecider.initialState(), '0-5')[0]!.stages.map((s) => s.id)).toEqual(['1', '2', '3', '4']);
  });

  it('given nothing, when a pipeline is created, then it gets the next numeric ids and checked metadata', () => {
    spec
      .given([])
      .when({
        ...base,
        type: 'CreatePipeline',
        input: { label: 'Partners', displayOrder: 1, stages: [stage('Lead', 0, '0.1'), stage('Won', 1, '1')] },
      })
      .then([created]);
  });

  it('given a pipeline, when another takes its label (any case), then 409', () => {
    spec
      .given([created])
      .when({ ...base, type: 'CreatePipeline', input: { label: 'partners', displayOrder: 0, stages: [stage('A', 0)] } })
      .thenThrows(isError(409));
  });

  it('deal stages need a probability in 0.0 .. 1.0', () => {
    spec
      .given([])
      .when({ ...base, type: 'CreatePipeline', input: { label: 'X', displayOrder: 0, stages: [stage('A', 0, '1.5')] } })
      .thenThrows(isError(400, 'INVALID_PROBABILITY'));
  });

  it('the tier’s pipeline limit counts the default pipeline', () => {
    spec
      .given([])
      .when({
        ...base,
        facts: { ...facts, tier: 'free' },
        type: 'CreatePipeline',
        input: { label: 'X', displayOrder: 0, stages: [stage('A', 0)] },
      })
      .thenThrows(isError(400, 'PIPELINE_LIMIT_REACHED'));
  });

  it('a stage in use is refused only when validation is asked', () => {
    const command = (validateUsages: boolean): PipelinesCommand => ({
      ...base,
      facts: { ...facts, stageUsage: { '100000002': 3 } },
      type: 'ArchivePipelineStage',
      pipelineId: '100000001',
      stageId: '100000002',
      validateUsages,
    });
    spec.given([created]).when(command(true)).thenThrows(isError(400, 'PIPELINE_STAGE_IN_USE'));
    spec
      .given([created])
      .when(command(false))
      .then([
        {
          type: PipelineEventType.PipelineStageArchived,
          data: { ...scope, pipelineId: '100000001', stageId: '100000002' },
        },
      ]);
  });

  it('the last pipeline and a pipeline’s last stage stay', () => {
    spec
      .given([])
      .when({ ...base, type: 'ArchivePipeline', pipelineId: 'default', validateUsages: false })
      .thenThrows(isError(400, 'LAST_PIPELINE'));
    spec
      .given([created])
      .when({
        ...base,
        type: 'ReplacePipeline',
        pipelineId: '100000001',
        input: { label: 'P', displayOrder: 0, stages: [] },
        validateUsages: false,
      })
      .thenThrows(isError(400, 'REQUIRED'));
  });

  it('a replace archives the stages it does not list and keeps the ids of those it does', () => {
    const [event] = spec
      .given([created])
      .when({
        ...base,
        type: 'ReplacePipeline',
        pipelineId: '100000001',
        input: {
          label: 'Partners',
          displayOrder: 1,
          stages: [{ ...stage('Won', 0, '1.0'), stageId: '100000003' }, stage('New', 1)],
        },
        validateUsages: false,
      })
      .events();
    const state = fold(pipelinesDecider.evolve, pipelinesDecider.initialState(), [created, event!]);
    const p = state.pipelines!.find((x) => x.id === '100000001')!;
    expect(p.stages.map((s) => [s.id, s.label, s.archived])).toEqual([
      ['100000003', 'Won', false],
      ['100000004', 'New', false],
      ['100000002', 'Lead', true],
    ]);
  });

  it('an unknown pipeline or stage: 404', () => {
    spec
      .given([])
      .when({ ...base, type: 'CreatePipelineStage', pipelineId: 'nope', input: stage('A', 0) })
      .thenThrows(isError(404));
    spec
      .given([])
      .when({ ...base, type: 'UpdatePipelineStage', pipelineId: 'default', stageId: 'nope', patch: { label: 'x' } })
      .thenThrows(isError(404));
  });
});
