import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../../platform/events/envelope';
import type { RecordCommand } from '../domain/record.decider';
import type { WriteSource } from '../domain/record-events';
import type { RecordView } from './crm-records.queries';

/** A single-record command as the bus carries it: the decider's command without the facts the handler adds. */
type Request<T extends RecordCommand['type']> = Omit<Extract<RecordCommand, { type: T }>, 'facts'>;

/** HubSpot's PublicAssociationsForObject of a create: the record to associate with, and the types. */
export interface CreateAssociation {
  toId: string;
  types: Array<{ category: string; typeId: number }>;
}

/** A create and the associations it makes (made through the associations module once the record is stored). */
export type CreateRecordRequest = Request<'CreateRecord'> & { associations?: CreateAssociation[] };

interface BatchOf<I> {
  hubId: number;
  objectType: string;
  inputs: I[];
  source: WriteSource;
}

/** POST .../batch/create: each input a create; the ones that fail are reported, the others stored. */
export interface BatchCreateRecords extends BatchOf<{
  properties: Record<string, string>;
  associations?: CreateAssociation[];
}> {
  type: 'BatchCreateRecords';
}

/** POST .../batch/update: each input by id, or by the value of a unique `idProperty`. */
export interface BatchUpdateRecords extends BatchOf<{
  id: string;
  idProperty?: string;
  properties: Record<string, string>;
}> {
  type: 'BatchUpdateRecords';
}

/** POST .../batch/upsert: each input's unique value resolves through its claim: update, else create. */
export interface BatchUpsertRecords extends BatchOf<{
  id: string;
  idProperty: string;
  properties: Record<string, string>;
}> {
  type: 'BatchUpsertRecords';
}

/** POST .../batch/archive: 204 whatever the records' state. */
export interface BatchArchiveRecords extends BatchOf<{ id: string }> {
  type: 'BatchArchiveRecords';
}

/** POST .../merge: `objectIdToMerge` merged into `primaryObjectId` (HubSpot's PublicMergeInput). */
export interface MergeRecords {
  type: 'MergeRecords';
  hubId: number;
  objectType: string;
  primaryObjectId: string;
  objectIdToMerge: string;
  source: WriteSource;
}

/**
 * HubSpot's restore of an archived record (its UI; here the admin route): `installAppId` names the
 * install whose clock decides the 90-day window (the service's time without it).
 */
export type RestoreRecordRequest = Request<'RestoreRecord'> & { installAppId?: number };

/** Every write on CRM records: the record decider's commands, and the batches that run them per record. */
export type CrmRecordsRequest =
  | CreateRecordRequest
  | Request<'UpdateRecord'>
  | Request<'ArchiveRecord'>
  | RestoreRecordRequest
  | Request<'PurgeRecord'>
  | MergeRecords
  | BatchCreateRecords
  | BatchUpdateRecords
  | BatchUpsertRecords
  | BatchArchiveRecords;

/** HubSpot's StandardError: one refused input of a batch. */
export interface StandardErrorView {
  status: string;
  category: string;
  message: string;
  context: Record<string, string[]>;
  errors: Array<{ message: string; in?: string; code?: string; subCategory?: string }>;
  links: Record<string, string>;
}

export interface UpsertedRecordView extends RecordView {
  new: boolean;
}

/** HubSpot's BatchResponseSimplePublicObject (and ...WithErrors, ...UpsertObject). */
export interface RecordBatchView<R = RecordView> {
  status: 'COMPLETE';
  results: R[];
  errors?: StandardErrorView[];
  numErrors?: number;
  startedAt: string;
  completedAt: string;
}

export interface CrmRecordsAnswers {
  CreateRecord: RecordView;
  UpdateRecord: RecordView;
  ArchiveRecord: void;
  RestoreRecord: RecordView;
  PurgeRecord: void;
  MergeRecords: RecordView;
  BatchCreateRecords: RecordBatchView;
  BatchUpdateRecords: RecordBatchView;
  BatchUpsertRecords: RecordBatchView<UpsertedRecordView>;
  BatchArchiveRecords: void;
}

/**
 * The one bus command of CRM records: it carries any request of the union (the `type` says which),
 * handled by CrmRecordsHandler. No class per request: the union is the vocabulary.
 */
export class CrmRecordsCommand<R extends CrmRecordsRequest = CrmRecordsRequest> extends Command<
  CrmRecordsAnswers[R['type']]
> {
  constructor(
    readonly request: R,
    readonly context: CommandContext,
  ) {
    super();
  }
}
