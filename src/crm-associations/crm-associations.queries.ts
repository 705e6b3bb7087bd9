import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../platform/projections/read-model-database';
import { cachedStatement } from '../platform/projections/statement-cache';
import { AssociationCatalogue, type AssociationCategory, RECORD_ASSOCIATION_LIMIT } from './domain/association-types';

/** HubSpot's AssociationSpecWithLabel (as a record's associations list them). */
export interface AssociationTypeView {
  category: AssociationCategory;
  typeId: number;
  label?: string;
}

/** HubSpot's MultiAssociatedObjectWithLabel. */
export interface AssociatedObjectView {
  toObjectId: string;
  associationTypes: AssociationTypeView[];
}

interface Row {
  to_id: number;
  category: string;
  type_id: number;
}

/**
 * Reads of the associations read model. Published to other modules: the records module asks
 * `associatedIds` when a read names `associations=` (HubSpot's `associations` of a record).
 */
@Injectable()
export class AssociationsQueries {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /**
   * The association types of the account: HubSpot's and the account's labels (USER_DEFINED, one type
   * per direction, from the CRM schema module's definitions).
   */
  catalogueOf(hubId: number): AssociationCatalogue {
    const rows = cachedStatement(
      this.db,
      `SELECT id, from_type AS "from", to_type AS "to", label, inverse_id AS inverseId, inverse_label AS inverseLabel
         FROM crm_association_labels WHERE hub_id = ? ORDER BY id`,
    ).all(hubId) as Array<{
      id: number;
      from: string;
      to: string;
      label: string;
      inverseId: number;
      inverseLabel: string;
    }>;
    const schemaTypes = cachedStatement(
      this.db,
      `SELECT id, from_type AS "from", to_type AS "to", inverse_id AS inverseId
         FROM crm_association_schema_types WHERE hub_id = ? ORDER BY id`,
    ).all(hubId) as Array<{ id: number; from: string; to: string; inverseId: number }>;
    return AssociationCatalogue.withLabels(rows, schemaTypes);
  }

  /** Whether each record is a live record of the account (ids that are not are returned). */
  missing(hubId: number, objectTypeId: string, ids: readonly number[]): number[] {
    const statement = cachedStatement(
      this.db,
      'SELECT 1 FROM crm_association_records WHERE hub_id = ? AND object_type_id = ? AND id = ?',
    );
    return ids.filter((id) => statement.get(hubId, objectTypeId, id) === undefined);
  }

  /**
   * A record's associations to records of one type, by associated id; `after` the last id of the
   * previous page. Only live records are listed.
   */
  page(
    hubId: number,
    fromType: string,
    fromId: number,
    toType: string,
    after: number,
    limit: number,
  ): { results: AssociatedObjectView[]; next: number | null } {
    const ids = cachedStatement(
      this.db,
      `SELECT DISTINCT a.to_id FROM crm_associations a
         JOIN crm_association_records r ON r.hub_id = a.hub_id AND r.object_type_id = a.to_type AND r.id = a.to_id
        WHERE a.hub_id = ? AND a.from_type = ? AND a.from_id = ? AND a.to_type = ? AND a.to_id > ?
        ORDER BY a.to_id LIMIT ?`,
    )
      .pluck()
      .all(hubId, fromType, fromId, toType, after, limit + 1) as number[];
    const more = ids.length > limit;
    const shown = ids.slice(0, limit);
    if (shown.length === 0) return { results: [], next: null };
    const rows = cachedStatement(
      this.db,
      `SELECT to_id, category, type_id FROM crm_associations
        WHERE hub_id = ? AND from_type = ? AND from_id = ? AND to_type = ? AND to_id BETWEEN ? AND ?
        ORDER BY to_id, category, type_id`,
    ).all(hubId, fromType, fromId, toType, shown[0], shown[shown.length - 1]) as Row[];
    const byId = new Map<number, AssociationTypeView[]>();
    const catalogue = this.catalogueOf(hubId);
    for (const r of rows) {
      if (!catalogue.get(r.category, r.type_id)) continue; // an archived label's type is no longer shown
      const list = byId.get(r.to_id) ?? [];
      list.push(this.typeView(catalogue, r.category, r.type_id));
      byId.set(r.to_id, list);
    }
    return {
      results: shown.map((id) => ({ toObjectId: String(id), associationTypes: byId.get(id) ?? [] })),
      next: more ? shown[shown.length - 1]! : null,
    };
  }

  /**
   * Every association type a record holds to live records of any type (the records module moves
   * them to the primary of a merge), in a stable order.
   */
  associationsOf(
    hubId: number,
    fromType: string,
    fromId: number,
  ): Array<{ toType: string; toId: number; category: string; typeId: number }> {
    return cachedStatement(
      this.db,
      `SELECT a.to_type AS toType, a.to_id AS toId, a.category, a.type_id AS typeId FROM crm_associations a
         JOIN crm_association_records r ON r.hub_id = a.hub_id AND r.object_type_id = a.to_type AND r.id = a.to_id
        WHERE a.hub_id = ? AND a.from_type = ? AND a.from_id = ?
        ORDER BY a.to_type, a.to_id, a.category, a.type_id`,
    ).all(hubId, fromType, fromId) as Array<{ toType: string; toId: number; category: string; typeId: number }>;
  }

  /** The types between two records, seen from `from` (the answer to a create). */
  typesBetween(hubId: number, fromType: string, fromId: number, toType: string, toId: number): AssociationTypeView[] {
    const rows = cachedStatement(
      this.db,
      `SELECT to_id, category, type_id FROM crm_associations
        WHERE hub_id = ? AND from_type = ? AND from_id = ? AND to_type = ? AND to_id = ? ORDER BY category, type_id`,
    ).all(hubId, fromType, fromId, toType, toId) as Row[];
    const catalogue = this.catalogueOf(hubId);
    return rows
      .filter((r) => catalogue.get(r.category, r.type_id))
      .map((r) => this.typeView(catalogue, r.category, r.type_id));
  }

  /** How many records of `toType` a record is associated with (live ones). */
  countTo(hubId: number, fromType: string, fromId: number, toType: string): number {
    return cachedStatement(
      this.db,
      `SELECT COUNT(DISTINCT a.to_id) FROM crm_associations a
         JOIN crm_association_records r ON r.hub_id = a.hub_id AND r.object_type_id = a.to_type AND r.id = a.to_id
        WHERE a.hub_id = ? AND a.from_type = ? AND a.from_id = ? AND a.to_type = ?`,
    )
      .pluck()
      .get(hubId, fromType, fromId, toType) as number;
  }

  /** The records of `toType` a record holds with this type (a Primary's holder, a label's usage). */
  holdersOfType(hubId: number, fromType: string, fromId: number, toType: string, category: string, typeId: number) {
    return cachedStatement(
      this.db,
      `SELECT to_id FROM crm_associations
        WHERE hub_id = ? AND from_type = ? AND from_id = ? AND to_type = ? AND category = ? AND type_id = ?`,
    )
      .pluck()
      .all(hubId, fromType, fromId, toType, category, typeId) as number[];
  }

  /**
   * The records module's question for `associations=` on a read: the ids each record is associated
   * with, per asked type (live records only), with HubSpot's association type names.
   */
  associatedIds(
    hubId: number,
    fromType: string,
    fromId: number,
    toType: string,
    limit = 500,
  ): Array<{ id: string; type: string }> {
    const { results } = this.page(hubId, fromType, fromId, toType, 0, limit);
    return results.flatMap((r) =>
      r.associationTypes.map((t) => ({ id: r.toObjectId, type: this.typeName(fromType, toType, t) })),
    );
  }

  /** The account's configured limit of a type of a pair (HubSpot's definition configuration), if any. */
  configuredLimit(hubId: number, from: string, to: string, category: string, typeId: number): number | undefined {
    return cachedStatement(
      this.db,
      `SELECT max_to_object_ids FROM crm_association_limits
        WHERE hub_id = ? AND from_type = ? AND to_type = ? AND category = ? AND type_id = ?`,
    )
      .pluck()
      .get(hubId, from, to, category, typeId) as number | undefined;
  }

  /** The per-record limit of a pair: the configured limit of its unlabeled type, else HubSpot's. */
  pairLimit(hubId: number, from: string, to: string): number {
    const unlabeled = this.catalogueOf(hubId).defaultOf(from, to);
    const configured = unlabeled && this.configuredLimit(hubId, from, to, unlabeled.category, unlabeled.typeId);
    return configured ?? RECORD_ASSOCIATION_LIMIT;
  }

  /** The configured limits, keyed by pair and type. */
  configurations(hubId: number): Array<{ from: string; to: string; category: string; typeId: number; max: number }> {
    return cachedStatement(
      this.db,
      `SELECT from_type AS "from", to_type AS "to", category, type_id AS typeId, max_to_object_ids AS max
         FROM crm_association_limits WHERE hub_id = ? ORDER BY from_type, to_type, type_id`,
    ).all(hubId) as Array<{ from: string; to: string; category: string; typeId: number; max: number }>;
  }

  /** The (from, to) object type pairs the account's records have associations between. */
  pairsInUse(hubId: number): Array<{ from: string; to: string }> {
    return cachedStatement(
      this.db,
      'SELECT DISTINCT from_type AS "from", to_type AS "to" FROM crm_associations WHERE hub_id = ? ORDER BY 1, 2',
    ).all(hubId) as Array<{ from: string; to: string }>;
  }

  /**
   * The live records of `fromType` holding at least `floor` associations to live records of
   * `toType`, most first, with the value they are shown by.
   */
  heavyRecords(
    hubId: number,
    fromType: string,
    toType: string,
    floor: number,
  ): Array<{ fromId: number; label: string; usage: number }> {
    return cachedStatement(
      this.db,
      `SELECT a.from_id AS fromId, f.label AS label, COUNT(DISTINCT a.to_id) AS usage
         FROM crm_associations a
         JOIN crm_association_records r ON r.hub_id = a.hub_id AND r.object_type_id = a.to_type AND r.id = a.to_id
         JOIN crm_association_records f ON f.hub_id = a.hub_id AND f.object_type_id = a.from_type AND f.id = a.from_id
        WHERE a.hub_id = ? AND a.from_type = ? AND a.to_type = ?
        GROUP BY a.from_id
       HAVING COUNT(DISTINCT a.to_id) >= ?
        ORDER BY usage DESC, a.from_id`,
    ).all(hubId, fromType, toType, floor) as Array<{ fromId: number; label: string; usage: number }>;
  }

  private typeView(catalogue: AssociationCatalogue, category: string, typeId: number): AssociationTypeView {
    const t = catalogue.get(category, typeId);
    return {
      category: category as AssociationCategory,
      typeId,
      ...(t?.label ? { label: t.label } : {}),
    };
  }

  /** HubSpot's v3 names of association types on records: `contact_to_company`, `contact_to_company_unlabeled`. */
  private typeName(fromType: string, toType: string, t: AssociationTypeView): string {
    const name = (id: string) => SINGULAR[id] ?? id;
    const base = `${name(fromType)}_to_${name(toType)}`;
    if (t.category !== 'HUBSPOT_DEFINED') return String(t.typeId);
    // HubSpot names the unlabeled type `_unlabeled` only where the pair also has a Primary.
    const hasPrimary = HUBSPOT_DEFINED.between(fromType, toType).some((x) => x.label !== null);
    return t.label || !hasPrimary ? base : `${base}_unlabeled`;
  }
}

const HUBSPOT_DEFINED = AssociationCatalogue.hubspotDefined();
const SINGULAR: Record<string, string> = { '0-1': 'contact', '0-2': 'company', '0-3': 'deal', '0-5': 'ticket' };
