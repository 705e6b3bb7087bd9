import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CrmRecordEventType, type RecordEvent } from '../../crm-records/crm-records.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { isPipelineType, pipelineTraitsOf } from '../domain/default-pipelines';
import { type PipelineEvent, PipelineEventType } from '../domain/pipeline-events';
import { evolvePipelines, type PipelinesState } from '../domain/pipelines.decider';

export const CRM_PIPELINES_PROJECTION = 'crm-pipelines';

/**
 * The pipelines read model: each account's pipelines of a type as the decider folds them (one JSON
 * row per account and type; no row: HubSpot's defaults), their audit trail (one row per event), and
 * the pipeline and stage each deal and ticket is in (from the records' published events), which is
 * what the usage checks before a delete and the stage counts ask.
 */
@Injectable()
export class CrmPipelinesProjection implements Projection<PipelineEvent | RecordEvent> {
  readonly name = CRM_PIPELINES_PROJECTION;
  readonly version = 1;
  readonly handles: readonly (PipelineEvent | RecordEvent)['type'][] = [
    ...Object.values(PipelineEventType),
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordPropertiesChanged,
    CrmRecordEventType.RecordArchived,
    CrmRecordEventType.RecordRestored,
    CrmRecordEventType.RecordMerged,
    CrmRecordEventType.RecordPurged,
  ];

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS crm_pipelines (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (hub_id, object_type_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_pipeline_audits (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        pipeline_id TEXT NOT NULL,
        stage_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        action TEXT NOT NULL,
        at INTEGER NOT NULL,
        user_id INTEGER,
        raw TEXT NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, pipeline_id, stage_id, position)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_pipeline_record_stages (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        id INTEGER NOT NULL,
        pipeline TEXT NOT NULL,
        stage TEXT NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS crm_pipeline_record_stages_by_stage
        ON crm_pipeline_record_stages (hub_id, object_type_id, pipeline, stage);
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM crm_pipelines; DELETE FROM crm_pipeline_audits; DELETE FROM crm_pipeline_record_stages;');
  }

  apply(event: Recorded<PipelineEvent | RecordEvent>, db: Database.Database): void {
    switch (event.type) {
      case CrmRecordEventType.RecordCreated:
      case CrmRecordEventType.RecordRestored:
        if (isPipelineType(event.data.objectTypeId)) {
          this.placeRecord(db, event.data.hubId, event.data.objectTypeId, event.data.id, event.data.properties, true);
        }
        return;
      case CrmRecordEventType.RecordPropertiesChanged:
        if (isPipelineType(event.data.objectTypeId)) {
          this.placeRecord(db, event.data.hubId, event.data.objectTypeId, event.data.id, event.data.changes, false);
        }
        return;
      case CrmRecordEventType.RecordArchived:
      case CrmRecordEventType.RecordMerged:
      case CrmRecordEventType.RecordPurged:
        cachedStatement(
          db,
          'DELETE FROM crm_pipeline_record_stages WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).run(event.data.hubId, event.data.objectTypeId, event.data.id);
        return;
      case CrmRecordEventType.RecordIdVoided:
        return;
      default:
        this.applyPipelineEvent(event, db);
    }
  }

  private applyPipelineEvent(event: Recorded<PipelineEvent>, db: Database.Database): void {
    const d = event.data;
    const row = cachedStatement(db, 'SELECT state FROM crm_pipelines WHERE hub_id = ? AND object_type_id = ?').get(
      d.hubId,
      d.objectTypeId,
    ) as { state: string } | undefined;
    const before: PipelinesState = row ? (JSON.parse(row.state) as PipelinesState) : { pipelines: null, lastId: 0 };
    const after = evolvePipelines(before, event);
    cachedStatement(db, 'INSERT OR REPLACE INTO crm_pipelines (hub_id, object_type_id, state) VALUES (?, ?, ?)').run(
      d.hubId,
      d.objectTypeId,
      JSON.stringify(after),
    );
    const audit = auditOf(event);
    cachedStatement(
      db,
      `INSERT OR REPLACE INTO crm_pipeline_audits
         (hub_id, object_type_id, pipeline_id, stage_id, position, action, at, user_id, raw)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.hubId,
      d.objectTypeId,
      audit.pipelineId,
      audit.stageId,
      event.position,
      audit.action,
      d.at,
      d.userId,
      JSON.stringify(audit.raw),
    );
  }

  /** A deal's or ticket's pipeline and stage; `fresh`: the record's first values (else only the changes). */
  private placeRecord(
    db: Database.Database,
    hubId: number,
    objectTypeId: string,
    id: number,
    values: Readonly<Record<string, string>>,
    fresh: boolean,
  ): void {
    const traits = pipelineTraitsOf(objectTypeId);
    if (!traits) return;
    const { pipelineProperty, stageProperty, defaults } = traits;
    if (!(pipelineProperty in values) && !(stageProperty in values) && (!fresh || !defaults)) return;
    const old = fresh
      ? undefined
      : (cachedStatement(
          db,
          'SELECT pipeline, stage FROM crm_pipeline_record_stages WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).get(hubId, objectTypeId, id) as { pipeline: string; stage: string } | undefined);
    const pipeline = (values[pipelineProperty] ?? old?.pipeline) || defaults?.id || '';
    const stage = values[stageProperty] ?? old?.stage ?? '';
    if (stage === '') {
      cachedStatement(
        db,
        'DELETE FROM crm_pipeline_record_stages WHERE hub_id = ? AND object_type_id = ? AND id = ?',
      ).run(hubId, objectTypeId, id);
      return;
    }
    cachedStatement(
      db,
      `INSERT OR REPLACE INTO crm_pipeline_record_stages (hub_id, object_type_id, id, pipeline, stage)
       VALUES (?, ?, ?, ?, ?)`,
    ).run(hubId, objectTypeId, id, pipeline, stage);
  }
}

/** HubSpot's audit entry of a pipeline event: CREATE, UPDATE or DELETE of the pipeline or of one of its stages. */
function auditOf(event: PipelineEvent): { pipelineId: string; stageId: string; action: string; raw: unknown } {
  switch (event.type) {
    case PipelineEventType.PipelineCreated:
      return { pipelineId: event.data.pipeline.id, stageId: '', action: 'CREATE', raw: event.data.pipeline };
    case PipelineEventType.PipelineReplaced:
      return { pipelineId: event.data.pipeline.id, stageId: '', action: 'UPDATE', raw: event.data.pipeline };
    case PipelineEventType.PipelineUpdated:
      return {
        pipelineId: event.data.pipelineId,
        stageId: '',
        action: event.data.changes.archived === true ? 'DELETE' : 'UPDATE',
        raw: event.data.changes,
      };
    case PipelineEventType.PipelineArchived:
      return { pipelineId: event.data.pipelineId, stageId: '', action: 'DELETE', raw: {} };
    case PipelineEventType.PipelineStageCreated:
      return {
        pipelineId: event.data.pipelineId,
        stageId: event.data.stage.id,
        action: 'CREATE',
        raw: event.data.stage,
      };
    case PipelineEventType.PipelineStageReplaced:
      return {
        pipelineId: event.data.pipelineId,
        stageId: event.data.stage.id,
        action: 'UPDATE',
        raw: event.data.stage,
      };
    case PipelineEventType.PipelineStageUpdated:
      return {
        pipelineId: event.data.pipelineId,
        stageId: event.data.stageId,
        action: event.data.changes.archived === true ? 'DELETE' : 'UPDATE',
        raw: event.data.changes,
      };
    case PipelineEventType.PipelineStageArchived:
      return { pipelineId: event.data.pipelineId, stageId: event.data.stageId, action: 'DELETE', raw: {} };
  }
}
