import type { Decider } from '../../platform/commands/decider';
import type { Tier } from '../../platform/tiers';
import { firstNewId, type PipelineObjectTypeId, pipelineTraitsOf } from './default-pipelines';
import {
  invalidPipelineInput,
  invalidProbability,
  lastPipeline,
  lastStage,
  pipelineIdTaken,
  pipelineLabelTaken,
  pipelineLimitReached,
  pipelineNotFound,
  stageLimitReached,
  stageNotFound,
  stagesInUse,
} from './pipeline-errors';
import { type PipelineData, type PipelineEvent, PipelineEventType, type StageData } from './pipeline-events';

export interface Stage extends StageData {
  createdAt: number;
  updatedAt: number;
  archived: boolean;
  archivedAt?: number;
}

export interface Pipeline {
  id: string;
  label: string;
  displayOrder: number;
  createdAt: number;
  updatedAt: number;
  archived: boolean;
  archivedAt?: number;
  stages: Stage[];
}

/** One account's pipelines of one object type; `null` until the type's defaults are seeded. */
export interface PipelinesState {
  pipelines: Pipeline[] | null;
  /** Ids handed out so far (new ids are `firstNewId(type) + lastId`). */
  lastId: number;
}

/** HubSpot's published pipeline ceilings per object type and tier (deals and tickets alike). */
export const PIPELINE_LIMITS: Record<Tier, number> = { free: 1, starter: 2, professional: 15, enterprise: 100 };
/** HubSpot's documented maximum of stages in one pipeline. */
export const MAX_STAGES_PER_PIPELINE = 100;

export interface StageInput {
  stageId?: string;
  label: string;
  displayOrder: number;
  metadata: Record<string, string>;
}

export interface PipelineInput {
  pipelineId?: string;
  label: string;
  displayOrder: number;
  stages: StageInput[];
}

interface Facts {
  now: number;
  userId: number | null;
  tier: Tier;
  /** Records per stage of the pipeline the command names (asked only when validation is asked). */
  stageUsage: Readonly<Record<string, number>>;
}

interface Base {
  hubId: number;
  objectTypeId: PipelineObjectTypeId;
  facts: Facts;
}

export type PipelinesCommand = Base &
  (
    | { type: 'CreatePipeline'; input: PipelineInput }
    | { type: 'ReplacePipeline'; pipelineId: string; input: PipelineInput; validateUsages: boolean }
    | {
        type: 'UpdatePipeline';
        pipelineId: string;
        patch: { label?: string; displayOrder?: number; archived?: boolean };
        validateUsages: boolean;
      }
    | { type: 'ArchivePipeline'; pipelineId: string; validateUsages: boolean }
    | { type: 'CreatePipelineStage'; pipelineId: string; input: StageInput }
    | { type: 'ReplacePipelineStage'; pipelineId: string; stageId: string; input: StageInput }
    | {
        type: 'UpdatePipelineStage';
        pipelineId: string;
        stageId: string;
        patch: { label?: string; displayOrder?: number; archived?: boolean; metadata?: Record<string, string> };
      }
    | { type: 'ArchivePipelineStage'; pipelineId: string; stageId: string; validateUsages: boolean }
  );

/** The state with the type's default pipeline in place (what every account has before a write). */
export function seeded(state: PipelinesState, objectTypeId: string): Pipeline[] {
  if (state.pipelines) return state.pipelines;
  const defaults = pipelineTraitsOf(objectTypeId)?.defaults;
  return defaults ? [fromData(defaults, 0)] : [];
}

const fromStage = (s: StageData, at: number): Stage => ({ ...s, createdAt: at, updatedAt: at, archived: false });
const fromData = (p: PipelineData, at: number): Pipeline => ({
  id: p.id,
  label: p.label,
  displayOrder: p.displayOrder,
  createdAt: at,
  updatedAt: at,
  archived: false,
  stages: p.stages.map((s) => fromStage(s, at)),
});

/** Active pipelines and stages, in HubSpot's display order (displayOrder, then label). */
export const byDisplayOrder = <T extends { displayOrder: number; label: string }>(a: T, b: T) =>
  a.displayOrder - b.displayOrder || a.label.localeCompare(b.label);

function numericId(id: string, objectTypeId: PipelineObjectTypeId): number {
  const n = /^\d+$/.test(id) ? Number(id) - firstNewId(objectTypeId) : 0;
  return n > 0 && n < 100_000_000 ? n : 0;
}

export function evolvePipelines(state: PipelinesState, event: PipelineEvent): PipelinesState {
  const d = event.data;
  const pipelines = seeded(state, d.objectTypeId).map((p) => ({ ...p, stages: [...p.stages] }));
  const type = d.objectTypeId as PipelineObjectTypeId;
  let lastId = state.lastId;
  const seen = (id: string) => (lastId = Math.max(lastId, numericId(id, type)));
  const find = (id: string) => pipelines.find((p) => p.id === id);
  switch (event.type) {
    case PipelineEventType.PipelineCreated: {
      const p = event.data.pipeline;
      pipelines.push(fromData(p, d.at));
      seen(p.id);
      p.stages.forEach((s) => seen(s.id));
      break;
    }
    case PipelineEventType.PipelineReplaced: {
      const p = find(event.data.pipeline.id);
      if (!p) break;
      const input = event.data.pipeline;
      const kept = new Map(p.stages.map((s) => [s.id, s]));
      const listed = new Set(input.stages.map((s) => s.id));
      p.label = input.label;
      p.displayOrder = input.displayOrder;
      p.updatedAt = d.at;
      p.stages = [
        ...input.stages.map((s) => {
          seen(s.id);
          const old = kept.get(s.id);
          return old ? { ...old, ...s, updatedAt: d.at, archived: false } : fromStage(s, d.at);
        }),
        ...p.stages
          .filter((s) => !listed.has(s.id))
          .map((s) => (s.archived ? s : { ...s, archived: true, archivedAt: d.at, updatedAt: d.at })),
      ];
      break;
    }
    case PipelineEventType.PipelineUpdated: {
      const p = find(event.data.pipelineId);
      if (!p) break;
      const c = event.data.changes;
      if (c.label !== undefined) p.label = c.label;
      if (c.displayOrder !== undefined) p.displayOrder = c.displayOrder;
      if (c.archived === false) {
        p.archived = false;
        delete p.archivedAt;
      }
      if (c.archived === true && !p.archived) {
        p.archived = true;
        p.archivedAt = d.at;
      }
      p.updatedAt = d.at;
      break;
    }
    case PipelineEventType.PipelineArchived: {
      const p = find(event.data.pipelineId);
      if (!p) break;
      p.archived = true;
      p.archivedAt = d.at;
      p.updatedAt = d.at;
      break;
    }
    case PipelineEventType.PipelineStageCreated:
    case PipelineEventType.PipelineStageReplaced: {
      const p = find(event.data.pipelineId);
      if (!p) break;
      const s = event.data.stage;
      seen(s.id);
      const i = p.stages.findIndex((x) => x.id === s.id);
      if (i < 0) p.stages.push(fromStage(s, d.at));
      else p.stages[i] = { ...p.stages[i]!, ...s, updatedAt: d.at, archived: false };
      p.updatedAt = d.at;
      break;
    }
    case PipelineEventType.PipelineStageUpdated:
    case PipelineEventType.PipelineStageArchived: {
      const p = find(event.data.pipelineId);
      const i = p ? p.stages.findIndex((x) => x.id === event.data.stageId) : -1;
      if (!p || i < 0) break;
      const s = { ...p.stages[i]! };
      const c = event.type === PipelineEventType.PipelineStageArchived ? { archived: true } : event.data.changes;
      if ('label' in c && c.label !== undefined) s.label = c.label;
      if ('displayOrder' in c && c.displayOrder !== undefined) s.displayOrder = c.displayOrder;
      if ('metadata' in c && c.metadata !== undefined) s.metadata = c.metadata;
      if (c.archived === true && !s.archived) {
        s.archived = true;
        s.archivedAt = d.at;
      }
      if (c.archived === false) {
        s.archived = false;
        delete s.archivedAt;
      }
      s.updatedAt = d.at;
      p.stages[i] = s;
      p.updatedAt = d.at;
      break;
    }
  }
  return { pipelines, lastId };
}

const within = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);

/**
 * A stage's metadata checked for its object type: deals need a probability in 0.0 .. 1.0; tickets'
 * ticketState is OPEN or CLOSED; a custom object's stages keep theirs as given (isClosed false unless said).
 */
function checkedMetadata(
  objectTypeId: PipelineObjectTypeId,
  metadata: Record<string, string>,
  field: string,
): Record<string, string> {
  const out = { ...metadata };
  if (objectTypeId === '0-3') {
    const raw = metadata.probability;
    const p = raw === undefined || raw === '' ? NaN : Number(raw);
    if (!Number.isFinite(p) || p < 0 || p > 1) throw invalidProbability(within(field, 'metadata.probability'));
    out.probability = String(p % 1 === 0 ? p.toFixed(1) : p);
    out.isClosed ??= String(p === 0 || p === 1);
  } else if (objectTypeId !== '0-5') {
    out.isClosed ??= 'false';
  } else {
    const state = metadata.ticketState;
    if (state !== undefined && state !== 'OPEN' && state !== 'CLOSED') {
      throw invalidPipelineInput(
        within(field, 'metadata.ticketState'),
        `ticketState must be OPEN or CLOSED, not ${state}.`,
        'INVALID_TICKET_STATE',
      );
    }
    out.ticketState = state ?? 'OPEN';
    out.isClosed ??= String(out.ticketState === 'CLOSED');
  }
  return out;
}

function allIds(pipelines: Pipeline[]): Set<string> {
  const ids = new Set<string>();
  for (const p of pipelines) {
    ids.add(p.id);
    for (const s of p.stages) ids.add(s.id);
  }
  return ids;
}

/** Ids for new pipelines and stages: the client's own when given (unique in the account's type), else the next number. */
class IdSource {
  private next: number;
  constructor(
    private readonly taken: Set<string>,
    state: PipelinesState,
    private readonly objectTypeId: PipelineObjectTypeId,
  ) {
    this.next = state.lastId + 1;
  }
  take(given: string | undefined): string {
    if (given !== undefined) {
      if (this.taken.has(given)) throw pipelineIdTaken(given);
      this.taken.add(given);
      return given;
    }
    let id: string;
    do id = String(firstNewId(this.objectTypeId) + this.next++);
    while (this.taken.has(id));
    this.taken.add(id);
    return id;
  }
}

function stagesOf(
  inputs: StageInput[],
  objectTypeId: PipelineObjectTypeId,
  ids: IdSource,
  existing: ReadonlyMap<string, Stage> = new Map(),
): StageData[] {
  if (inputs.length === 0) throw invalidPipelineInput('stages', 'A pipeline must have at least one stage.', 'REQUIRED');
  if (inputs.length > MAX_STAGES_PER_PIPELINE) throw stageLimitReached(MAX_STAGES_PER_PIPELINE);
  const labels = new Set<string>();
  return inputs.map((s, i) => {
    const key = s.label.toLowerCase();
    if (labels.has(key)) {
      throw invalidPipelineInput(
        `stages.${i}.label`,
        `Stage labels must be unique in a pipeline: ${s.label}.`,
        'DUPLICATE_LABEL',
      );
    }
    labels.add(key);
    const id = s.stageId !== undefined && existing.has(s.stageId) ? s.stageId : ids.take(s.stageId);
    return {
      id,
      label: s.label,
      displayOrder: s.displayOrder,
      metadata: checkedMetadata(objectTypeId, s.metadata, `stages.${i}`),
    };
  });
}

function refuseUsed(pipelineId: string, stageIds: readonly string[], usage: Readonly<Record<string, number>>) {
  const used = stageIds.map((stageId) => ({ stageId, count: usage[stageId] ?? 0 })).filter((u) => u.count > 0);
  if (used.length > 0) throw stagesInUse(pipelineId, used);
}

export function decidePipelines(command: PipelinesCommand, state: PipelinesState): PipelineEvent[] {
  const { hubId, objectTypeId, facts } = command;
  const pipelines = seeded(state, objectTypeId);
  const active = pipelines.filter((p) => !p.archived);
  const scope = { hubId, objectTypeId, userId: facts.userId, at: facts.now };
  const pipelineOf = (id: string): Pipeline => {
    const p = active.find((x) => x.id === id);
    if (!p) throw pipelineNotFound(id);
    return p;
  };
  const stageOf = (p: Pipeline, id: string): Stage => {
    const s = p.stages.find((x) => x.id === id && !x.archived);
    if (!s) throw stageNotFound(p.id, id);
    return s;
  };
  const labelFree = (label: string, except?: string) => {
    if (active.some((p) => p.id !== except && p.label.toLowerCase() === label.toLowerCase()))
      throw pipelineLabelTaken(label);
  };
  switch (command.type) {
    case 'CreatePipeline': {
      const limit = PIPELINE_LIMITS[facts.tier];
      if (active.length >= limit) throw pipelineLimitReached(limit);
      labelFree(command.input.label);
      const ids = new IdSource(allIds(pipelines), state, objectTypeId);
      const id = ids.take(command.input.pipelineId);
      const stages = stagesOf(command.input.stages, objectTypeId, ids);
      const pipeline = { id, label: command.input.label, displayOrder: command.input.displayOrder, stages };
      return [{ type: PipelineEventType.PipelineCreated, data: { ...scope, pipeline } }];
    }
    case 'ReplacePipeline': {
      const p = pipelineOf(command.pipelineId);
      labelFree(command.input.label, p.id);
      const existing = new Map(p.stages.map((s) => [s.id, s]));
      const others = new Set([...allIds(pipelines)].filter((id) => id !== p.id && !existing.has(id)));
      const stages = stagesOf(command.input.stages, objectTypeId, new IdSource(others, state, objectTypeId), existing);
      const listed = new Set(stages.map((s) => s.id));
      if (command.validateUsages) {
        refuseUsed(
          p.id,
          p.stages.filter((s) => !s.archived && !listed.has(s.id)).map((s) => s.id),
          facts.stageUsage,
        );
      }
      const pipeline = { id: p.id, label: command.input.label, displayOrder: command.input.displayOrder, stages };
      return [{ type: PipelineEventType.PipelineReplaced, data: { ...scope, pipeline } }];
    }
    case 'UpdatePipeline': {
      const p = pipelines.find((x) => x.id === command.pipelineId);
      // An archived pipeline can only be restored (`archived: false`).
      if (!p || (p.archived && command.patch.archived !== false)) throw pipelineNotFound(command.pipelineId);
      if (command.patch.label !== undefined) labelFree(command.patch.label, p.id);
      if (command.patch.archived === true && !p.archived) {
        if (active.length <= 1) throw lastPipeline();
        if (command.validateUsages)
          refuseUsed(
            p.id,
            p.stages.map((s) => s.id),
            facts.stageUsage,
          );
      }
      return [
        { type: PipelineEventType.PipelineUpdated, data: { ...scope, pipelineId: p.id, changes: command.patch } },
      ];
    }
    case 'ArchivePipeline': {
      const p = pipelineOf(command.pipelineId);
      if (active.length <= 1) throw lastPipeline();
      if (command.validateUsages)
        refuseUsed(
          p.id,
          p.stages.map((s) => s.id),
          facts.stageUsage,
        );
      return [{ type: PipelineEventType.PipelineArchived, data: { ...scope, pipelineId: p.id } }];
    }
    case 'CreatePipelineStage': {
      const p = pipelineOf(command.pipelineId);
      const live = p.stages.filter((s) => !s.archived);
      if (live.length >= MAX_STAGES_PER_PIPELINE) throw stageLimitReached(MAX_STAGES_PER_PIPELINE);
      if (live.some((s) => s.label.toLowerCase() === command.input.label.toLowerCase())) {
        throw invalidPipelineInput(
          'label',
          `Stage labels must be unique in a pipeline: ${command.input.label}.`,
          'DUPLICATE_LABEL',
        );
      }
      const id = new IdSource(allIds(pipelines), state, objectTypeId).take(command.input.stageId);
      const stage = {
        id,
        label: command.input.label,
        displayOrder: command.input.displayOrder,
        metadata: checkedMetadata(objectTypeId, command.input.metadata, ''),
      };
      return [{ type: PipelineEventType.PipelineStageCreated, data: { ...scope, pipelineId: p.id, stage } }];
    }
    case 'ReplacePipelineStage': {
      const p = pipelineOf(command.pipelineId);
      const s = stageOf(p, command.stageId);
      uniqueStageLabel(p, command.input.label, s.id);
      const stage = {
        id: s.id,
        label: command.input.label,
        displayOrder: command.input.displayOrder,
        metadata: checkedMetadata(objectTypeId, command.input.metadata, ''),
      };
      return [{ type: PipelineEventType.PipelineStageReplaced, data: { ...scope, pipelineId: p.id, stage } }];
    }
    case 'UpdatePipelineStage': {
      const p = pipelineOf(command.pipelineId);
      const s = p.stages.find((x) => x.id === command.stageId);
      if (!s || (s.archived && command.patch.archived !== false)) throw stageNotFound(p.id, command.stageId);
      if (command.patch.label !== undefined) uniqueStageLabel(p, command.patch.label, s.id);
      if (command.patch.archived === true && !s.archived && p.stages.filter((x) => !x.archived).length <= 1) {
        throw lastStage();
      }
      const changes = { ...command.patch };
      if (changes.metadata !== undefined) {
        changes.metadata = checkedMetadata(objectTypeId, { ...s.metadata, ...changes.metadata }, '');
      }
      return [
        {
          type: PipelineEventType.PipelineStageUpdated,
          data: { ...scope, pipelineId: p.id, stageId: s.id, changes },
        },
      ];
    }
    case 'ArchivePipelineStage': {
      const p = pipelineOf(command.pipelineId);
      const s = stageOf(p, command.stageId);
      if (p.stages.filter((x) => !x.archived).length <= 1) throw lastStage();
      if (command.validateUsages) refuseUsed(p.id, [s.id], facts.stageUsage);
      return [{ type: PipelineEventType.PipelineStageArchived, data: { ...scope, pipelineId: p.id, stageId: s.id } }];
    }
  }
}

function uniqueStageLabel(p: Pipeline, label: string, except: string) {
  if (p.stages.some((s) => !s.archived && s.id !== except && s.label.toLowerCase() === label.toLowerCase())) {
    throw invalidPipelineInput('label', `Stage labels must be unique in a pipeline: ${label}.`, 'DUPLICATE_LABEL');
  }
}

export const pipelinesDecider: Decider<PipelinesState, PipelinesCommand, PipelineEvent> = {
  initialState: () => ({ pipelines: null, lastId: 0 }),
  evolve: evolvePipelines,
  decide: decidePipelines,
};
