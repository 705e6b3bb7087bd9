/**
 * The events of CRM records that other modules may read (search, associations, webhooks): their
 * type strings, data shapes and stream names. The definitions live in domain/, which is pure.
 */
export {
  CrmRecordEventType,
  recordStream,
  type RecordArchived,
  type RecordCreated,
  type RecordEvent,
  type RecordIdVoided,
  type RecordPropertiesChanged,
  type RecordRestored,
  type WriteSource,
  crmRecordsEvents,
} from './domain/record-events';
