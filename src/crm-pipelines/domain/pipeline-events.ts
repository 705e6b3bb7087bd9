import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';

/**
 * Event types of pipelines (deals and tickets). One stream per account and object type
 * (`crm.pipelines-{hubId}-{objectTypeId}`); HubSpot's default pipeline of the type is the state
 * before the stream's first event, so it exists without a write.
 */
export const PipelineEventType = {
  PipelineCreated: 'crm.PipelineCreated',
  PipelineReplaced: 'crm.PipelineReplaced',
  PipelineUpdated: 'crm.PipelineUpdated',
  PipelineArchived: 'crm.PipelineArchived',
  PipelineStageCreated: 'crm.PipelineStageCreated',
  PipelineStageReplaced: 'crm.PipelineStageReplaced',
  PipelineStageUpdated: 'crm.PipelineStageUpdated',
  PipelineStageArchived: 'crm.PipelineStageArchived',
} as const;

export const pipelinesStream = (hubId: number, objectTypeId: string) => `crm.pipelines-${hubId}-${objectTypeId}`;

/** A stage as written (the decider fills ids and the order of stages). */
export interface StageData {
  id: string;
  label: string;
  displayOrder: number;
  metadata: Record<string, string>;
}

export interface PipelineData {
  id: string;
  label: string;
  displayOrder: number;
  stages: StageData[];
}

interface Scope {
  hubId: number;
  objectTypeId: string;
  /** The user the writing token was issued to (HubSpot's audit `fromUserId`). */
  userId: number | null;
  at: number;
}

export interface PipelineCreated {
  type: typeof PipelineEventType.PipelineCreated;
  data: Scope & { pipeline: PipelineData };
}

/** PUT: the pipeline's label, order and stages replaced; stages not listed are archived. */
export interface PipelineReplaced {
  type: typeof PipelineEventType.PipelineReplaced;
  data: Scope & { pipeline: PipelineData };
}

export interface PipelineUpdated {
  type: typeof PipelineEventType.PipelineUpdated;
  data: Scope & { pipelineId: string; changes: { label?: string; displayOrder?: number; archived?: boolean } };
}

export interface PipelineArchived {
  type: typeof PipelineEventType.PipelineArchived;
  data: Scope & { pipelineId: string };
}

export interface PipelineStageCreated {
  type: typeof PipelineEventType.PipelineStageCreated;
  data: Scope & { pipelineId: string; stage: StageData };
}

export interface PipelineStageReplaced {
  type: typeof PipelineEventType.PipelineStageReplaced;
  data: Scope & { pipelineId: string; stage: StageData };
}

export interface PipelineStageUpdated {
  type: typeof PipelineEventType.PipelineStageUpdated;
  data: Scope & {
    pipelineId: string;
    stageId: string;
    changes: { label?: string; displayOrder?: number; archived?: boolean; metadata?: Record<string, string> };
  };
}

export interface PipelineStageArchived {
  type: typeof PipelineEventType.PipelineStageArchived;
  data: Scope & { pipelineId: string; stageId: string };
}

export type PipelineEvent =
  | PipelineCreated
  | PipelineReplaced
  | PipelineUpdated
  | PipelineArchived
  | PipelineStageCreated
  | PipelineStageReplaced
  | PipelineStageUpdated
  | PipelineStageArchived;

const asIs: EventDecoder | null = null;

export const pipelineEvents: EventDefinitions = Object.fromEntries(
  Object.values(PipelineEventType).map((type) => [type, asIs]),
);
