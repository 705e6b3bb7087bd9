import type { Decider } from '../../platform/commands/decider';
import { checkPropertyValues, type PropertyRules } from './property-values';
import { propertyValuesNotValid, recordNotFound, restoreWindowPassed } from './record-errors';
import { CrmRecordEventType, type RecordEvent, type WriteSource } from './record-events';

/** What the edge adds to a record command: the resolved object type, the record's id, the account's definitions, the time. */
export interface RecordFacts {
  objectTypeId: string;
  id: number;
  /** The account's property definitions of the type (not needed to archive). */
  rules: PropertyRules;
  now: number;
}

/** POST /crm/v3/objects/{objectType}: a record under a fresh id. */
export interface CreateRecord {
  type: 'CreateRecord';
  hubId: number;
  objectType: string;
  /** As sent (scalars as strings); checked here against `facts.rules`. */
  properties: Record<string, string>;
  source: WriteSource;
  facts: RecordFacts;
}

/** PATCH /crm/v3/objects/{objectType}/{objectId}: only the values that change are recorded. */
export interface UpdateRecord {
  type: 'UpdateRecord';
  hubId: number;
  objectType: string;
  /** The path's id, or the value of `idProperty`. */
  recordId: string;
  idProperty?: string;
  properties: Record<string, string>;
  source: WriteSource;
  facts: RecordFacts;
}

/** DELETE /crm/v3/objects/{objectType}/{objectId}: archived (restorable); twice, or unknown, decides nothing. */
export interface ArchiveRecord {
  type: 'ArchiveRecord';
  hubId: number;
  objectType: string;
  recordId: string;
  source: WriteSource;
  facts: Omit<RecordFacts, 'rules'>;
}

/**
 * HubSpot's restore of an archived record (its UI's recycle bin; here the admin route): live again
 * under its id with the values it had. Within RESTORE_WINDOW_MS of the archive, on `facts.now` (the
 * install's clock when the caller names one); a live record decides nothing. The handler claims its
 * unique values back first (another live holder of its e-mail refuses the restore).
 */
export interface RestoreRecord {
  type: 'RestoreRecord';
  hubId: number;
  objectType: string;
  recordId: string;
  source: WriteSource;
  facts: Omit<RecordFacts, 'rules'>;
}

/** HubSpot's recycle bin keeps an archived record restorable for 90 days. */
export const RESTORE_WINDOW_DAYS = 90;
export const RESTORE_WINDOW_MS = RESTORE_WINDOW_DAYS * 24 * 60 * 60 * 1000;

/**
 * Spends an id whose unique value was claimed but whose record was never stored (see
 * RecordIdVoided); decides nothing when the record exists (the caller then reads its state).
 */
export interface VoidRecordId {
  type: 'VoidRecordId';
  hubId: number;
  facts: Omit<RecordFacts, 'rules'>;
  source: WriteSource;
}

/** POST .../merge, on the record merged away: it is gone from reads and takes no more writes. */
export interface MergeRecordInto {
  type: 'MergeRecordInto';
  hubId: number;
  objectType: string;
  recordId: string;
  primaryId: number;
  source: WriteSource;
  facts: Omit<RecordFacts, 'rules'>;
}

/** POST .../merge, on the primary record: it takes the merged record's values where it has none. */
export interface AbsorbMergedRecord {
  type: 'AbsorbMergedRecord';
  hubId: number;
  objectType: string;
  recordId: string;
  mergedId: number;
  mergedProperties: Record<string, string>;
  source: WriteSource;
  facts: Omit<RecordFacts, 'rules'>;
}

/** POST .../gdpr-delete: the record's history goes (the handler removes its events in the same append). */
export interface PurgeRecord {
  type: 'PurgeRecord';
  hubId: number;
  objectType: string;
  recordId: string;
  idProperty?: string;
  source: WriteSource;
  facts: Omit<RecordFacts, 'rules'>;
}

export type RecordCommand =
  | CreateRecord
  | UpdateRecord
  | ArchiveRecord
  | RestoreRecord
  | VoidRecordId
  | MergeRecordInto
  | AbsorbMergedRecord
  | PurgeRecord;

export interface RecordState {
  exists: boolean;
  /** The id was spent without a record (RecordIdVoided). */
  voided: boolean;
  /** Merged into another record (RecordMerged). */
  merged: boolean;
  /** GDPR-deleted (RecordPurged): nothing of it is left. */
  purged: boolean;
  archived: boolean;
  /** When it was created and, while archived, when it was archived (the restore window counts from it). */
  createdAt: number;
  archivedAt: number | null;
  /** Current values (none empty). */
  properties: Record<string, string>;
}

/** Thrown when a fresh id's stream already holds a record: the caller takes another id. */
export class RecordIdTaken extends Error {
  constructor() {
    super('record id taken');
    this.name = 'RecordIdTaken';
  }
}

/** HubSpot's property listing the ids merged into a record (read-only: set by merges alone). */
export const MERGED_IDS = 'hs_merged_object_ids';

/** HubSpot's contact property holding the e-mails of contacts merged into it (`;`-separated). */
export const ADDITIONAL_EMAILS = 'hs_additional_emails';
const CONTACT_TYPE_ID = '0-1';

/** A contact's e-mails: its `email` and its additional ones, lower-cased (e-mails compare without case). */
export function emailsOf(properties: Readonly<Record<string, string>>): string[] {
  return [properties.email ?? '', ...(properties[ADDITIONAL_EMAILS] ?? '').split(';')]
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
}

/**
 * HubSpot keeps a merged contact's e-mail as an additional e-mail of the primary: the primary's
 * own additional e-mails, the merged one's, and its e-mail, without the primary's e-mail (the
 * merged e-mail becomes the primary's own when it has none) and without repeats.
 */
function additionalEmailsAfterMerge(
  primary: Readonly<Record<string, string>>,
  merged: Readonly<Record<string, string>>,
): string {
  const own = (primary.email ?? merged.email ?? '').trim().toLowerCase();
  const all = [...emailsOf(primary), ...emailsOf(merged)].filter((e) => e !== own);
  return [...new Set(all)].join(';');
}

/** A record reads and writes may find: created, not archived, merged away or purged. */
export const isLive = (state: RecordState) => state.exists && !state.archived && !state.merged;

const withoutEmpty = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));

/** The values of `command` checked against the account's definitions; HubSpot's 400 with every problem otherwise. */
export function checkedValues(hubId: number, properties: Record<string, string>, rules: PropertyRules) {
  const { values, problems } = checkPropertyValues(properties, rules);
  if (problems.length > 0) throw propertyValuesNotValid(hubId, problems);
  return values;
}

/**
 * One CRM record's stream: created once, its values changed (only real changes are recorded, so
 * the stream is the property history), archived. An archived record cannot be updated (404).
 */
export const recordDecider: Decider<RecordState, RecordCommand, RecordEvent> = {
  initialState: () => ({
    exists: false,
    voided: false,
    merged: false,
    purged: false,
    archived: false,
    createdAt: 0,
    archivedAt: null,
    properties: {},
  }),
  evolve: (state, event) => {
    switch (event.type) {
      case CrmRecordEventType.RecordCreated:
        return {
          ...state,
          exists: true,
          archived: false,
          createdAt: event.data.createdAt,
          properties: { ...event.data.properties },
        };
      case CrmRecordEventType.RecordPropertiesChanged: {
        const properties = { ...state.properties };
        for (const [name, value] of Object.entries(event.data.changes)) {
          if (value === '') delete properties[name];
          else properties[name] = value;
        }
        return { ...state, properties };
      }
      case CrmRecordEventType.RecordArchived:
        return { ...state, archived: true, archivedAt: event.data.archivedAt };
      case CrmRecordEventType.RecordRestored:
        return { ...state, archived: false, archivedAt: null };
      case CrmRecordEventType.RecordIdVoided:
        return { ...state, voided: true };
      case CrmRecordEventType.RecordMerged:
        return { ...state, merged: true };
      case CrmRecordEventType.RecordPurged:
        return { ...state, exists: false, purged: true, properties: {} };
    }
  },
  decide: (command, state) => {
    const { hubId, facts, source } = command;
    const at = { hubId, objectTypeId: facts.objectTypeId, id: facts.id };
    switch (command.type) {
      case 'CreateRecord': {
        if (state.exists || state.voided || state.purged) throw new RecordIdTaken();
        const values = checkedValues(hubId, command.properties, command.facts.rules);
        return [
          {
            type: CrmRecordEventType.RecordCreated,
            data: { ...at, properties: withoutEmpty(values), createdAt: facts.now, ...source },
          },
        ];
      }
      case 'UpdateRecord': {
        if (!isLive(state)) throw recordNotFound();
        const values = checkedValues(hubId, command.properties, command.facts.rules);
        const changes = Object.fromEntries(
          Object.entries(values).filter(([name, value]) => (state.properties[name] ?? '') !== value),
        );
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: CrmRecordEventType.RecordPropertiesChanged,
            data: { ...at, changes, changedAt: facts.now, ...source },
          },
        ];
      }
      case 'ArchiveRecord':
        if (!isLive(state)) return [];
        return [{ type: CrmRecordEventType.RecordArchived, data: { ...at, archivedAt: facts.now, ...source } }];
      case 'RestoreRecord': {
        if (!state.exists || state.merged || state.purged) throw recordNotFound();
        if (!state.archived || state.archivedAt === null) return [];
        if (facts.now - state.archivedAt > RESTORE_WINDOW_MS)
          throw restoreWindowPassed(state.archivedAt, RESTORE_WINDOW_DAYS);
        return [
          {
            type: CrmRecordEventType.RecordRestored,
            data: {
              ...at,
              properties: { ...state.properties },
              createdAt: state.createdAt,
              archivedAt: state.archivedAt,
              restoredAt: facts.now,
              ...source,
            },
          },
        ];
      }
      case 'VoidRecordId':
        if (state.exists || state.voided || state.purged) return [];
        return [{ type: CrmRecordEventType.RecordIdVoided, data: { ...at, voidedAt: facts.now } }];
      case 'MergeRecordInto':
        if (!isLive(state) || command.primaryId === facts.id) throw recordNotFound();
        return [
          {
            type: CrmRecordEventType.RecordMerged,
            data: { ...at, into: command.primaryId, mergedAt: facts.now, ...source },
          },
        ];
      case 'AbsorbMergedRecord': {
        if (!isLive(state)) throw recordNotFound();
        const changes: Record<string, string> = Object.fromEntries(
          Object.entries(command.mergedProperties).filter(
            ([name, v]) => v !== '' && name !== MERGED_IDS && state.properties[name] === undefined,
          ),
        );
        // HubSpot's record of what was merged into this one: its own earlier merges, the merged
        // record's, and the merged record's id (`;`-separated, as HubSpot's multi-value properties).
        const merged = [state.properties[MERGED_IDS], command.mergedProperties[MERGED_IDS], String(command.mergedId)]
          .filter((v): v is string => v !== undefined && v !== '')
          .flatMap((v) => v.split(';'));
        changes[MERGED_IDS] = [...new Set(merged)].join(';');
        if (facts.objectTypeId === CONTACT_TYPE_ID) {
          const additional = additionalEmailsAfterMerge(state.properties, command.mergedProperties);
          if (additional !== (state.properties[ADDITIONAL_EMAILS] ?? '')) changes[ADDITIONAL_EMAILS] = additional;
        }
        return [
          {
            type: CrmRecordEventType.RecordPropertiesChanged,
            data: { ...at, changes, changedAt: facts.now, ...source },
          },
        ];
      }
      case 'PurgeRecord':
        if (!state.exists) return [];
        return [{ type: CrmRecordEventType.RecordPurged, data: { ...at, purgedAt: facts.now } }];
    }
  },
};
