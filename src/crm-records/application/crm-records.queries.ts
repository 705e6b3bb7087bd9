import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { eventTypes } from '../../platform/events/event-type-registry';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { CrmRecordEventType, type RecordEvent, recordStream } from '../domain/record-events';
import { type RecordTypeTraits, recordTypeTraits } from '../domain/record-types';

/** HubSpot's SimplePublicObject (and its WithAssociations / Upsert forms, which add fields). */
export interface RecordView {
  id: string;
  properties: Record<string, string>;
  propertiesWithHistory?: Record<string, PropertyHistoryEntry[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
  /** Reads with `associations=`: the associated ids per asked type (HubSpot's CollectionResponseAssociatedId). */
  associations?: Record<string, { results: Array<{ id: string; type: string }> }>;
}

/** HubSpot's ValueWithTimestamp. */
export interface PropertyHistoryEntry {
  value: string;
  timestamp: string;
  sourceType: string;
  sourceId?: string;
  updatedByUserId?: number;
}

interface RecordRow {
  id: number;
  properties: string;
  created_at: number;
  updated_at: number;
  archived: number;
  archived_at: number | null;
}

/** Which values a read shows: the named properties, or the type's defaults when none are named. */
export interface Shown {
  properties?: readonly string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Reads of the `crm-records` read model: one record, pages of records, records by a unique value. */
@Injectable()
export class CrmRecordsQueries {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /** The record if the account has it in the state asked for (archived or not); else null. */
  get(hubId: number, objectTypeId: string, id: number, archived: boolean, shown: Shown = {}): RecordView | null {
    const row = this.row(hubId, objectTypeId, id);
    if (!row || (row.archived === 1) !== archived) return null;
    return viewOf(objectTypeId, row, shown);
  }

  private row(hubId: number, objectTypeId: string, id: number): RecordRow | undefined {
    if (!Number.isSafeInteger(id)) return undefined;
    return cachedStatement(
      this.db,
      `SELECT id, properties, created_at, updated_at, archived, archived_at FROM crm_records
        WHERE hub_id = ? AND object_type_id = ? AND id = ?`,
    ).get(hubId, objectTypeId, id) as RecordRow | undefined;
  }

  /** A page of records ordered by id, after the id `after`; `next` is the last id when more follow. */
  page(
    hubId: number,
    objectTypeId: string,
    options: { archived: boolean; after: number; limit: number } & Shown,
  ): { results: RecordView[]; next: number | null } {
    const rows = cachedStatement(
      this.db,
      `SELECT id, properties, created_at, updated_at, archived, archived_at FROM crm_records
        WHERE hub_id = ? AND object_type_id = ? AND archived = ? AND id > ? ORDER BY id LIMIT ?`,
    ).all(hubId, objectTypeId, options.archived ? 1 : 0, options.after, options.limit + 1) as RecordRow[];
    const more = rows.length > options.limit;
    const page = more ? rows.slice(0, options.limit) : rows;
    return {
      results: page.map((r) => viewOf(objectTypeId, r, options)),
      next: more ? page[page.length - 1]!.id : null,
    };
  }

  /**
   * The id of the record whose `property` has `value` (e-mails without case), archived or not as
   * asked; null when none. The lowest id when several do (values of non-unique properties).
   */
  idBy(hubId: number, objectTypeId: string, property: string, value: string, archived: boolean): number | null {
    if (property === 'hs_object_id') {
      const id = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
      const row = this.row(hubId, objectTypeId, id);
      return row && (row.archived === 1) === archived ? row.id : null;
    }
    const found =
      property === 'email'
        ? cachedStatement(
            this.db,
            `SELECT id FROM crm_records WHERE hub_id = ? AND object_type_id = ?
               AND lower(json_extract(properties, '$.email')) = ? AND archived = ? ORDER BY id LIMIT 1`,
          ).get(hubId, objectTypeId, value.trim().toLowerCase(), archived ? 1 : 0)
        : cachedStatement(
            this.db,
            `SELECT id FROM crm_records WHERE hub_id = ? AND object_type_id = ?
               AND json_extract(properties, ?) = ? AND archived = ? ORDER BY id LIMIT 1`,
          ).get(hubId, objectTypeId, `$."${property.replace(/["\\]/g, '')}"`, value, archived ? 1 : 0);
    return (found as { id: number } | undefined)?.id ?? null;
  }

  /** Non-archived records of one object type, or (`2-%`) of all custom object types together. */
  liveCount(hubId: number, objectTypeId: string): number {
    const row = (
      objectTypeId === CUSTOM_TYPES
        ? cachedStatement(
            this.db,
            `SELECT TOTAL(live) AS n FROM crm_record_counts WHERE hub_id = ? AND object_type_id LIKE '2-%'`,
          ).get(hubId)
        : cachedStatement(
            this.db,
            'SELECT live AS n FROM crm_record_counts WHERE hub_id = ? AND object_type_id = ?',
          ).get(hubId, objectTypeId)
    ) as { n: number } | undefined;
    return Number(row?.n ?? 0);
  }

  /** Non-archived records per object type of the account (the types with any). */
  counts(hubId: number): Array<{ objectTypeId: string; count: number }> {
    return (
      cachedStatement(
        this.db,
        `SELECT object_type_id AS objectTypeId, live AS count FROM crm_record_counts
          WHERE hub_id = ? AND live > 0 ORDER BY object_type_id`,
      ).all(hubId) as Array<{ objectTypeId: string; count: number }>
    ).map((r) => ({ objectTypeId: r.objectTypeId, count: Number(r.count) }));
  }
}

/** `liveCount`'s name for every custom object type together (they share one ceiling). */
export const CUSTOM_TYPES = '2-*';

/** Each type's default properties in the order a view lists them (made once per type). */
const sortedDefaults = new Map<RecordTypeTraits, readonly string[]>();

/** The names in the order a view lists them: as they are when already sorted (a write's answer), else a sorted copy. */
function sortedNames(names: readonly string[]): readonly string[] {
  for (let i = 1; i < names.length; i++) if (names[i - 1]! > names[i]!) return [...names].sort();
  return names;
}

function viewOf(objectTypeId: string, row: RecordRow, shown: Shown): RecordView {
  // Every GET by id comes here: the stored values are parsed once and only the shown names are
  // looked up; the system values (id, create and modified dates) win over stored ones, as before.
  const stored = JSON.parse(row.properties) as Record<string, string>;
  const traits = recordTypeTraits(objectTypeId);
  const createdAt = iso(row.created_at);
  const updatedAt = row.updated_at === row.created_at ? createdAt : iso(row.updated_at);
  let names = shown.properties ? sortedNames(shown.properties) : sortedDefaults.get(traits);
  if (!names) sortedDefaults.set(traits, (names = [...traits.defaultProperties].sort()));
  const properties: Record<string, string> = {};
  for (const name of names) {
    const value =
      name === 'hs_object_id'
        ? String(row.id)
        : name === traits.createdProperty
          ? createdAt
          : name === traits.modifiedProperty
            ? updatedAt
            : Object.hasOwn(stored, name)
              ? stored[name]
              : undefined;
    if (value !== undefined) properties[name] = value;
  }
  const view: RecordView = {
    id: String(row.id),
    properties,
    createdAt,
    updatedAt,
    archived: row.archived === 1,
  };
  if (row.archived_at !== null) view.archivedAt = iso(row.archived_at);
  return view;
}

/**
 * `propertiesWithHistory`: a read of the record's own stream, newest value first, as HubSpot
 * lists it. Each write by an app is HubSpot's INTEGRATION source with the app's id.
 */
@Injectable()
export class RecordHistory {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async of(
    hubId: number,
    objectTypeId: string,
    id: number,
    names: readonly string[],
  ): Promise<Record<string, PropertyHistoryEntry[]>> {
    const wanted = new Set(names);
    const history: Record<string, PropertyHistoryEntry[]> = {};
    for (const name of wanted) history[name] = [];
    const traits = recordTypeTraits(objectTypeId);
    const recorded = await this.store.readStream(recordStream(hubId, objectTypeId, id));
    for (const event of eventTypes.decodeStream<RecordEvent>(recorded)) {
      const source = (d: { appId: number | null; userId: number | null }) => ({
        sourceType: d.appId !== null ? 'INTEGRATION' : 'API',
        ...(d.appId !== null ? { sourceId: String(d.appId) } : {}),
        ...(d.userId !== null ? { updatedByUserId: d.userId } : {}),
      });
      const add = (name: string, value: string, at: number, from: ReturnType<typeof source>) => {
        if (wanted.has(name)) history[name]!.push({ value, timestamp: iso(at), ...from });
      };
      switch (event.type) {
        case CrmRecordEventType.RecordCreated: {
          const d = event.data;
          const from = source(d);
          add('hs_object_id', String(d.id), d.createdAt, from);
          add(traits.createdProperty, iso(d.createdAt), d.createdAt, from);
          for (const [name, value] of Object.entries(d.properties)) add(name, value, d.createdAt, from);
          add(traits.modifiedProperty, iso(d.createdAt), d.createdAt, from);
          break;
        }
        case CrmRecordEventType.RecordPropertiesChanged: {
          const d = event.data;
          const from = source(d);
          for (const [name, value] of Object.entries(d.changes)) add(name, value, d.changedAt, from);
          add(traits.modifiedProperty, iso(d.changedAt), d.changedAt, from);
          break;
        }
        // A restore writes no value, but sets the modified date (the read model's, too).
        case CrmRecordEventType.RecordRestored: {
          const d = event.data;
          add(traits.modifiedProperty, iso(d.restoredAt), d.restoredAt, source(d));
          break;
        }
        default:
          break;
      }
    }
    for (const name of wanted) history[name]!.reverse();
    return history;
  }
}
