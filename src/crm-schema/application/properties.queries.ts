import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { hubSpotDefinedPropertiesOf } from '../domain/object-types';
import { defaultGroupsOf } from '../domain/property-groups';
import type { DataSensitivity } from '../domain/property-rules';
import { PropertyRow, rowToProperty } from './limits-rows';
import { LimitsQueries } from './limits.queries';
import { PropertyGroupView, PropertyView, toPropertyView } from './property.views';

export interface PropertyListFilter {
  archived: boolean;
  dataSensitivity: DataSensitivity;
  /** Only these names (the `properties` query parameter); all when undefined. */
  names?: ReadonlySet<string>;
}

interface GroupRow {
  name: string;
  label: string;
  display_order: number;
  archived: number;
}

/**
 * Reads of the properties API: one property, the list with HubSpot's filters, batch read,
 * and the property groups (HubSpot's default groups first, then the account's, from the `limits`
 * projection). A list holds the properties of the one `dataSensitivity` asked for.
 */
@Injectable()
export class PropertiesQueries {
  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    private readonly limits: LimitsQueries,
  ) {}

  list(hubId: number, rawObjectType: string, filter: PropertyListFilter): PropertyView[] {
    const resolved = this.limits.resolve(hubId, rawObjectType);
    const rows = cachedStatement(
      this.db,
      `SELECT * FROM limits_properties WHERE hub_id = ? AND object_type_id = ? AND archived = ? ORDER BY created_at, name`,
    ).all(hubId, resolved.objectTypeId, filter.archived ? 1 : 0) as PropertyRow[];
    // Names first (a batch read names a few of a hundred or more), then the views of those only.
    const named = <T extends { name: string }>(list: readonly T[]) =>
      filter.names ? list.filter((p) => filter.names!.has(p.name)) : list;
    const defaults = !filter.archived
      ? named(hubSpotDefinedPropertiesOf(resolved)).map((p) =>
          toPropertyView(p, { hubspotDefined: true, archived: false }),
        )
      : [];
    // HubSpot lists one sensitivity at a time (non_sensitive unless asked); its own properties are non-sensitive.
    return [...defaults, ...named(rows).map(rowToProperty)].filter((p) => p.dataSensitivity === filter.dataSensitivity);
  }

  /** One property (HubSpot-defined ones of standard types first), archived or active as asked; else 404. */
  get(hubId: number, rawObjectType: string, name: string, archived: boolean): PropertyView {
    const resolved = this.limits.resolve(hubId, rawObjectType);
    if (!archived) {
      const builtIn = hubSpotDefinedPropertiesOf(resolved).find((p) => p.name === name);
      if (builtIn) return toPropertyView(builtIn, { hubspotDefined: true, archived: false });
    }
    const row = cachedStatement(
      this.db,
      'SELECT * FROM limits_properties WHERE hub_id = ? AND object_type_id = ? AND name = ? AND archived = ?',
    ).get(hubId, resolved.objectTypeId, name, archived ? 1 : 0) as PropertyRow | undefined;
    if (!row) throw HubSpotError.notFound(`Property ${name} does not exist`);
    return rowToProperty(row);
  }

  /** Batch read: the properties found, in input order, and the names that were not. */
  read(
    hubId: number,
    rawObjectType: string,
    names: readonly string[],
    filter: Omit<PropertyListFilter, 'names'>,
  ): { found: PropertyView[]; missing: string[] } {
    const byName = new Map(
      this.list(hubId, rawObjectType, { ...filter, names: new Set(names) }).map((p) => [p.name, p]),
    );
    const found: PropertyView[] = [];
    const missing: string[] = [];
    for (const name of new Set(names)) {
      const p = byName.get(name);
      if (p) found.push(p);
      else missing.push(name);
    }
    return { found, missing };
  }

  listGroups(hubId: number, rawObjectType: string): PropertyGroupView[] {
    const resolved = this.limits.resolve(hubId, rawObjectType);
    const own = cachedStatement(
      this.db,
      `SELECT name, label, display_order, archived FROM limits_property_groups
        WHERE hub_id = ? AND object_type_id = ? AND archived = 0 ORDER BY created_at, name`,
    ).all(hubId, resolved.objectTypeId) as GroupRow[];
    return [
      ...defaultGroupsOf(resolved).map((g) => ({ ...g, archived: false })),
      ...own.map((g) => ({ name: g.name, label: g.label, displayOrder: g.display_order, archived: false })),
    ];
  }

  getGroup(hubId: number, rawObjectType: string, name: string): PropertyGroupView {
    const group = this.listGroups(hubId, rawObjectType).find((g) => g.name === name);
    if (!group) throw HubSpotError.notFound(`Property group ${name} does not exist`);
    return group;
  }
}
