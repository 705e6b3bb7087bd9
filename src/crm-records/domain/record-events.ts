import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';
import { sha256Hex } from '../../platform/security/crypto';

/**
 * Event types of CRM records. Stable strings: they are what storage holds. Each record lives in
 * its own stream (`crm.record-{hubId}-{objectTypeId}-{id}`), so its property history is a read of
 * that stream; unique values (a contact's e-mail) are claimed on their own streams; ids are
 * reserved per account in ranges, so no stream is written per create besides the record's own.
 */
export const CrmRecordEventType = {
  RecordCreated: 'crm.RecordCreated',
  RecordPropertiesChanged: 'crm.RecordPropertiesChanged',
  RecordArchived: 'crm.RecordArchived',
  RecordRestored: 'crm.RecordRestored',
  RecordIdVoided: 'crm.RecordIdVoided',
  RecordMerged: 'crm.RecordMerged',
  RecordPurged: 'crm.RecordPurged',
  UniqueValueClaimed: 'crm.UniqueValueClaimed',
  RecordIdsReserved: 'crm.RecordIdsReserved',
} as const;

export const recordStream = (hubId: number, objectTypeId: string, id: number) =>
  `crm.record-${hubId}-${objectTypeId}-${id}`;

/**
 * A unique value's claim, named by the hash of its key (`uniqueValueKey`: e-mails lower-cased), so
 * the stream name holds no personal data.
 */
export const uniqueValueStream = (hubId: number, objectTypeId: string, property: string, key: string) =>
  `crm.unique-${hubId}-${objectTypeId}-${property}-${sha256Hex(key).slice(0, 40)}`;

export const recordIdsStream = (hubId: number) => `crm.record-ids-${hubId}`;

/** Who wrote a value: HubSpot's `sourceType`/`sourceId` of property history (an app: INTEGRATION and its id). */
export interface WriteSource {
  appId: number | null;
  userId: number | null;
}

export interface RecordCreated {
  type: typeof CrmRecordEventType.RecordCreated;
  data: {
    hubId: number;
    objectTypeId: string;
    id: number;
    /** The values set at creation (never empty strings), checked against the account's definitions. */
    properties: Record<string, string>;
    createdAt: number;
  } & WriteSource;
}

/** Only the properties whose value changed; `''` clears a value. */
export interface RecordPropertiesChanged {
  type: typeof CrmRecordEventType.RecordPropertiesChanged;
  data: {
    hubId: number;
    objectTypeId: string;
    id: number;
    changes: Record<string, string>;
    changedAt: number;
  } & WriteSource;
}

export interface RecordArchived {
  type: typeof CrmRecordEventType.RecordArchived;
  data: { hubId: number; objectTypeId: string; id: number; archivedAt: number } & WriteSource;
}

/**
 * An archived record is live again (HubSpot's restore, within 90 days of its archive), under its id.
 * It carries the values it is restored with and its creation time, so read models that dropped the
 * record on its archive (search, snapshots) take it back from this event alone. GDPR delete removes
 * it with the rest of the stream.
 */
export interface RecordRestored {
  type: typeof CrmRecordEventType.RecordRestored;
  data: {
    hubId: number;
    objectTypeId: string;
    id: number;
    properties: Record<string, string>;
    createdAt: number;
    archivedAt: number;
    restoredAt: number;
  } & WriteSource;
}

/**
 * The id's create never completed (its unique value was claimed, then the process stopped): the id
 * is spent, so that create can no longer complete, and the claim may move to another record.
 */
export interface RecordIdVoided {
  type: typeof CrmRecordEventType.RecordIdVoided;
  data: { hubId: number; objectTypeId: string; id: number; voidedAt: number };
}

/** The record was merged into `into` (which took its values where it had none); it is gone from reads. */
export interface RecordMerged {
  type: typeof CrmRecordEventType.RecordMerged;
  data: { hubId: number; objectTypeId: string; id: number; into: number; mergedAt: number } & WriteSource;
}

/**
 * GDPR delete: the record's earlier events were removed from the store in the same append (the
 * store's retention port), so this is all its stream holds afterwards. It carries no value of the
 * record; who asked is the event's actor.
 */
export interface RecordPurged {
  type: typeof CrmRecordEventType.RecordPurged;
  data: { hubId: number; objectTypeId: string; id: number; purgedAt: number };
}

/** A unique value (a contact's e-mail) now names this record. */
export interface UniqueValueClaimed {
  type: typeof CrmRecordEventType.UniqueValueClaimed;
  data: { hubId: number; objectTypeId: string; property: string; id: number; claimedAt: number };
}

/** Ids `from` .. `from + count - 1` of the account are handed out by one instance. */
export interface RecordIdsReserved {
  type: typeof CrmRecordEventType.RecordIdsReserved;
  data: { hubId: number; from: number; count: number; reservedAt: number };
}

export type RecordEvent =
  | RecordCreated
  | RecordPropertiesChanged
  | RecordArchived
  | RecordRestored
  | RecordIdVoided
  | RecordMerged
  | RecordPurged;
export type CrmRecordsEvent = RecordEvent | UniqueValueClaimed | RecordIdsReserved;

const asIs: EventDecoder | null = null;

export const crmRecordsEvents: EventDefinitions = {
  [CrmRecordEventType.RecordCreated]: asIs,
  [CrmRecordEventType.RecordPropertiesChanged]: asIs,
  [CrmRecordEventType.RecordArchived]: asIs,
  [CrmRecordEventType.RecordRestored]: asIs,
  [CrmRecordEventType.RecordIdVoided]: asIs,
  [CrmRecordEventType.RecordMerged]: asIs,
  [CrmRecordEventType.RecordPurged]: asIs,
  [CrmRecordEventType.UniqueValueClaimed]: asIs,
  [CrmRecordEventType.RecordIdsReserved]: asIs,
};
