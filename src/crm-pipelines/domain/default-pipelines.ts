import type { PipelineData } from './pipeline-events';

/**
 * HubSpot's default pipelines: every account has them before any write (their `createdAt` is 0,
 * as HubSpot's spec says of default pipelines). Ids, labels and metadata as HubSpot's accounts
 * show them: the deal pipeline `default` with its seven stages and their probabilities, the ticket
 * pipeline `0` with four stages and their ticket states.
 */
const DEFAULT_DEAL_PIPELINE: PipelineData = {
  id: 'default',
  label: 'Sales Pipeline',
  displayOrder: 0,
  stages: [
    ['appointmentscheduled', 'Appointment Scheduled', '0.2'],
    ['qualifiedtobuy', 'Qualified To Buy', '0.4'],
    ['presentationscheduled', 'Presentation Scheduled', '0.6'],
    ['decisionmakerboughtin', 'Decision Maker Bought-In', '0.8'],
    ['contractsent', 'Contract Sent', '0.9'],
    ['closedwon', 'Closed Won', '1.0'],
    ['closedlost', 'Closed Lost', '0.0'],
  ].map(([id, label, probability], i) => ({
    id: id!,
    label: label!,
    displayOrder: i,
    metadata: { isClosed: String(id === 'closedwon' || id === 'closedlost'), probability: probability! },
  })),
};

const DEFAULT_TICKET_PIPELINE: PipelineData = {
  id: '0',
  label: 'Support Pipeline',
  displayOrder: 0,
  stages: [
    ['1', 'New', 'OPEN'],
    ['2', 'Waiting on contact', 'OPEN'],
    ['3', 'Waiting on us', 'OPEN'],
    ['4', 'Closed', 'CLOSED'],
  ].map(([id, label, ticketState], i) => ({
    id: id!,
    label: label!,
    displayOrder: i,
    metadata: { ticketState: ticketState!, isClosed: String(ticketState === 'CLOSED') },
  })),
};

/** The object types that have pipelines here, with their default pipeline and the record properties that name a stage. */
export const PIPELINE_TYPES = {
  '0-3': { name: 'deals', defaults: DEFAULT_DEAL_PIPELINE, pipelineProperty: 'pipeline', stageProperty: 'dealstage' },
  '0-5': {
    name: 'tickets',
    defaults: DEFAULT_TICKET_PIPELINE,
    pipelineProperty: 'hs_pipeline',
    stageProperty: 'hs_pipeline_stage',
  },
} as const;

/** Deals, tickets, or a custom object type (`2-<n>`): the types whose pipelines this module keeps. */
export type PipelineObjectTypeId = string;

export interface PipelineTraits {
  /** HubSpot's default pipeline of the type (none for a custom object: its pipelines are the account's). */
  defaults: PipelineData | null;
  pipelineProperty: string;
  stageProperty: string;
}

const CUSTOM_TYPE = /^2-\d+$/;

/**
 * A custom object's pipelines (HubSpot has them: `/crm/v3/pipelines/{objectType}` with its type id):
 * none before the account makes one; its records name them as tickets do (`hs_pipeline`,
 * `hs_pipeline_stage`); its stages' metadata is free.
 */
const CUSTOM_TRAITS: PipelineTraits = {
  defaults: null,
  pipelineProperty: 'hs_pipeline',
  stageProperty: 'hs_pipeline_stage',
};

/** The traits of a type that has pipelines; null for the others. */
export function pipelineTraitsOf(objectTypeId: string): PipelineTraits | null {
  if (objectTypeId === '0-3' || objectTypeId === '0-5') return PIPELINE_TYPES[objectTypeId];
  return CUSTOM_TYPE.test(objectTypeId) ? CUSTOM_TRAITS : null;
}

export const isPipelineType = (objectTypeId: string): boolean => pipelineTraitsOf(objectTypeId) !== null;

/** `deals`, `deal`, `0-3`, `tickets`, `ticket`, `0-5` (any case) to the type id; anything else: null. */
export function pipelineTypeOf(raw: string): '0-3' | '0-5' | null {
  const key = raw.trim().toLowerCase();
  if (key === '0-3' || key === 'deals' || key === 'deal') return '0-3';
  if (key === '0-5' || key === 'tickets' || key === 'ticket') return '0-5';
  return null;
}

/** First id handed to a new pipeline or stage of the type (HubSpot's new ids are numeric strings). */
export function firstNewId(objectTypeId: string): number {
  return objectTypeId === '0-3' ? 100_000_000 : objectTypeId === '0-5' ? 200_000_000 : 300_000_000;
}
