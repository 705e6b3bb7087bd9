import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../platform/projections/read-model-database';
import { cachedStatement } from '../platform/projections/statement-cache';
import { PIPELINE_TYPES, pipelineTraitsOf } from './domain/default-pipelines';
import { byDisplayOrder, type Pipeline, type PipelinesState, seeded, type Stage } from './domain/pipelines.decider';

/** HubSpot's PipelineStage. */
export interface PipelineStageView {
  id: string;
  label: string;
  displayOrder: number;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
  /** HubSpot's write access of the stage: every stage here follows the CRM's permissions. */
  writePermissions: 'CRM_PERMISSIONS_ENFORCEMENT';
}

/** HubSpot's Pipeline. */
export interface PipelineView {
  id: string;
  label: string;
  displayOrder: number;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
  stages: PipelineStageView[];
}

/** HubSpot's PublicAuditInfo. */
export interface PipelineAuditView {
  action: string;
  identifier: string;
  portalId: number;
  timestamp: string;
  fromUserId?: number;
  rawObject: Record<string, unknown>;
}

/** What a record's pipeline and stage values are refused for, as a property-value problem. */
export interface RecordStageProblem {
  name: string;
  error: 'INVALID_OPTION';
  message: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function stageView(s: Stage): PipelineStageView {
  return {
    id: s.id,
    label: s.label,
    displayOrder: s.displayOrder,
    metadata: s.metadata,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    archived: s.archived,
    ...(s.archivedAt !== undefined ? { archivedAt: iso(s.archivedAt) } : {}),
    writePermissions: 'CRM_PERMISSIONS_ENFORCEMENT',
  };
}

export function pipelineView(p: Pipeline): PipelineView {
  return {
    id: p.id,
    label: p.label,
    displayOrder: p.displayOrder,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    archived: p.archived,
    ...(p.archivedAt !== undefined ? { archivedAt: iso(p.archivedAt) } : {}),
    stages: p.stages
      .filter((s) => !s.archived)
      .sort(byDisplayOrder)
      .map(stageView),
  };
}

/**
 * Reads of the pipelines read model (deals and tickets). Published to other modules (the records
 * module asks `recordStageProblem` before it writes a deal or a ticket).
 */
@Injectable()
export class PipelinesQueries {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /** Every pipeline of the type, archived ones too (HubSpot's defaults when the account never wrote one). */
  private state(hubId: number, objectTypeId: string): Pipeline[] {
    const row = cachedStatement(this.db, 'SELECT state FROM crm_pipelines WHERE hub_id = ? AND object_type_id = ?').get(
      hubId,
      objectTypeId,
    ) as { state: string } | undefined;
    const state: PipelinesState = row ? (JSON.parse(row.state) as PipelinesState) : { pipelines: null, lastId: 0 };
    return seeded(state, objectTypeId);
  }

  /** The active pipelines, in display order. */
  list(hubId: number, objectTypeId: string): PipelineView[] {
    return this.state(hubId, objectTypeId)
      .filter((p) => !p.archived)
      .sort(byDisplayOrder)
      .map(pipelineView);
  }

  /** One pipeline; archived ones only when asked for (an answer to the write that archived it). */
  get(hubId: number, objectTypeId: string, pipelineId: string, archived = false): PipelineView | null {
    const p = this.state(hubId, objectTypeId).find((x) => x.id === pipelineId && (archived || !x.archived));
    return p ? pipelineView(p) : null;
  }

  /** One stage of an active pipeline; archived stages only when asked for (the answer to the write that archived it). */
  stage(hubId: number, objectTypeId: string, pipelineId: string, stageId: string, archived = false) {
    const p = this.state(hubId, objectTypeId).find((x) => x.id === pipelineId && !x.archived);
    const s = p?.stages.find((x) => x.id === stageId && (archived || !x.archived));
    return s ? stageView(s) : null;
  }

  /** The active stages of an active pipeline, in display order; null when there is no such pipeline. */
  stages(hubId: number, objectTypeId: string, pipelineId: string): PipelineStageView[] | null {
    return this.get(hubId, objectTypeId, pipelineId)?.stages ?? null;
  }

  /** Active pipelines of deals and tickets (the pipelines limits endpoint). */
  activeCounts(hubId: number): Array<{ objectTypeId: string; count: number }> {
    return Object.keys(PIPELINE_TYPES).map((objectTypeId) => ({
      objectTypeId,
      count: this.activeCount(hubId, objectTypeId),
    }));
  }

  /** Active pipelines of one type (a custom type's: 0 until the account makes one). */
  activeCount(hubId: number, objectTypeId: string): number {
    return this.state(hubId, objectTypeId).filter((p) => !p.archived).length;
  }

  /** The audit of a pipeline (its own changes and its stages'), or of one stage; newest first. */
  audits(hubId: number, objectTypeId: string, pipelineId: string, stageId?: string): PipelineAuditView[] {
    const rows = cachedStatement(
      this.db,
      `SELECT stage_id, action, at, user_id, raw FROM crm_pipeline_audits
        WHERE hub_id = ? AND object_type_id = ? AND pipeline_id = ? AND (? IS NULL OR stage_id = ?)
        ORDER BY position DESC`,
    ).all(hubId, objectTypeId, pipelineId, stageId ?? null, stageId ?? null) as Array<{
      stage_id: string;
      action: string;
      at: number;
      user_id: number | null;
      raw: string;
    }>;
    return rows.map((r) => ({
      action: r.action,
      identifier: r.stage_id || pipelineId,
      portalId: hubId,
      timestamp: iso(r.at),
      ...(r.user_id !== null ? { fromUserId: r.user_id } : {}),
      rawObject: JSON.parse(r.raw) as Record<string, unknown>,
    }));
  }

  /** Records per stage of one pipeline (what a delete with validation must not leave stranded). */
  stageUsage(hubId: number, objectTypeId: string, pipelineId: string): Record<string, number> {
    const rows = cachedStatement(
      this.db,
      `SELECT stage, COUNT(*) AS n FROM crm_pipeline_record_stages
        WHERE hub_id = ? AND object_type_id = ? AND pipeline = ? GROUP BY stage`,
    ).all(hubId, objectTypeId, pipelineId) as Array<{ stage: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.stage, r.n]));
  }

  /**
   * The records module's question before it writes a deal or a ticket: with `written` (the write's
   * values, `''` clears) over `current` (the record's values before it), are its pipeline and stage a
   * pipeline of the account and one of that pipeline's active stages? Asked only when the write
   * names either; a stage without a pipeline is judged against the type's default pipeline. Other
   * object types, and writes that name neither: null.
   */
  recordStageProblem(
    hubId: number,
    objectTypeId: string,
    written: Readonly<Record<string, string>>,
    current: Readonly<Record<string, string>> = {},
  ): RecordStageProblem | null {
    const traits = pipelineTraitsOf(objectTypeId);
    if (!traits) return null;
    const { pipelineProperty, stageProperty, defaults } = traits;
    if (!(pipelineProperty in written) && !(stageProperty in written)) return null;
    const after = (name: string) => (name in written ? written[name] : current[name]) || undefined;
    const givenPipeline = after(pipelineProperty);
    const stage = after(stageProperty);
    const pipelines = this.state(hubId, objectTypeId).filter((p) => !p.archived);
    const pipeline = pipelines.find((p) => p.id === (givenPipeline ?? defaults?.id));
    if (!pipeline) {
      if (givenPipeline === undefined) return null;
      return {
        name: pipelineProperty,
        error: 'INVALID_OPTION',
        message: `${givenPipeline} was not one of the allowed options: [${pipelines.map((p) => p.id).join(', ')}]`,
      };
    }
    if (stage === undefined) return null;
    const stages = pipeline.stages.filter((s) => !s.archived);
    if (stages.some((s) => s.id === stage)) return null;
    return {
      name: stageProperty,
      error: 'INVALID_OPTION',
      message: `${stage} is not a valid stage of pipeline ${pipeline.id}; allowed options: [${stages.map((s) => s.id).join(', ')}]`,
    };
  }
}
