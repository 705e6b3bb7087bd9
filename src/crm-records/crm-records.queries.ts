/**
 * The records read model as other modules may read it (the lint allows this file): one record, pages
 * in id order, a record by a unique value, and a record's property history from its stream.
 */
export {
  CrmRecordsQueries,
  RecordHistory,
  type PropertyHistoryEntry,
  type RecordView,
} from './application/crm-records.queries';
