import { sha256Hex } from '../../platform/security/crypto';
import type { FilterCondition, JournalAction, JournalSubscription } from './journal-events';

/**
 * What the journal keeps: entries, their offsets, and which subscriptions take a change. Pure.
 */

/** Entries older than this on their install's clock are gone (HubSpot keeps 3 days). */
export const JOURNAL_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * An entry's offset: a UUID (HubSpot's `currentOffset` format) derived from the event it comes from
 * and the app, so a rebuild of the journal from the history gives every entry the same offset.
 * Order is kept beside it (the event's global position).
 */
export function entryOffset(sourceEventId: string, appId: number, part: number): string {
  const h = sha256Hex(`journal:${sourceEventId}:${appId}:${part}`);
  // Version 8 (custom) and the RFC 4122 variant: a well-formed UUID.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const OFFSET_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * One change in an entry file's `journalEvents` (docs/webhooks-journal.md, "The entry file": the
 * field names follow what HubSpot's journal clients read; HubSpot does not document the file).
 */
export interface JournalChange {
  portalId: number;
  appId: number;
  /** ISO 8601, the install's time of the change. */
  occurredAt: string;
  action: JournalAction;
  subscriptionIds: number[];
  objectTypeId?: string;
  objectId?: number;
  /** CREATE: the values set; UPDATE: the values changed; SNAPSHOT: the values now. */
  propertyChanges?: Record<string, string>;
  mergedIntoObjectId?: number;
  associatedObjectTypeId?: string;
  associatedObjectId?: number;
  associationTypeIds?: number[];
  snapshotStatusId?: string;
  changeSource?: string;
  sourceId?: string;
}

/** An entry's file: its offset, when the journal took it (service time, ISO 8601), and its change. */
export interface JournalEntryFile {
  offset: string;
  publishedAt: string;
  journalEvents: JournalChange[];
}

/** A record change, as the journal sees the records module's events. */
export interface RecordChangeFacts {
  portalId: number;
  objectTypeId: string;
  objectId: number;
  action: 'CREATE' | 'UPDATE' | 'DELETE' | 'MERGE' | 'RESTORE' | 'GDPR_DELETE';
  properties: Record<string, string>;
}

/** The properties an OBJECT subscription keeps of a change (null: it takes none of it). */
export function objectSubscriptionTakes(
  s: JournalSubscription,
  change: RecordChangeFacts,
): Record<string, string> | null {
  const type = change.action === 'GDPR_DELETE' ? 'GDPR_PRIVACY_DELETION' : 'OBJECT';
  if (s.subscriptionType !== type || s.portalId !== change.portalId || s.objectTypeId !== change.objectTypeId)
    return null;
  if (!s.actions.includes(change.action)) return null;
  if (s.objectIds.length > 0 && !s.objectIds.includes(change.objectId)) return null;
  if (change.action !== 'UPDATE' || s.properties.length === 0) return change.properties;
  const kept = Object.fromEntries(Object.entries(change.properties).filter(([name]) => s.properties.includes(name)));
  return Object.keys(kept).length > 0 ? kept : null;
}

/**
 * A filter's conditions, all of which must hold, over the values the entry carries (a change's
 * changed values, a creation's values set): a condition on a property the entry does not carry
 * holds only for IS_EMPTY and N_EQ / NOT_IN.
 */
export function conditionsHold(conditions: readonly FilterCondition[], values: Record<string, string>): boolean {
  return conditions.every((c) => conditionHolds(c, values[c.property]));
}

function conditionHolds(c: FilterCondition, value: string | undefined): boolean {
  const present = value !== undefined && value !== '';
  const v = value ?? '';
  const target = c.value ?? '';
  const numeric = (op: (a: number, b: number) => boolean) => {
    if (!present) return false;
    const a = Number(v);
    const b = Number(target);
    return Number.isFinite(a) && Number.isFinite(b) ? op(a, b) : op(v.localeCompare(target), 0);
  };
  switch (c.operator) {
    case 'EQ':
      return present && v === target;
    case 'N_EQ':
      return v !== target;
    case 'LT':
      return numeric((a, b) => a < b);
    case 'GT':
      return numeric((a, b) => a > b);
    case 'LTE':
      return numeric((a, b) => a <= b);
    case 'GTE':
      return numeric((a, b) => a >= b);
    case 'CONTAINS':
      return present && v.includes(target);
    case 'STARTS_WITH':
      return present && v.startsWith(target);
    case 'ENDS_WITH':
      return present && v.endsWith(target);
    case 'IN':
      return present && (c.values ?? []).includes(v);
    case 'NOT_IN':
      return !(c.values ?? []).includes(v);
    case 'IS_EMPTY':
      return !present;
    case 'IS_NOT_EMPTY':
      return present;
  }
}
