import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { hubSpotDefinedPropertiesOf } from '../domain/object-types';
import { PropertyRow, rowToProperty, SchemaBody, SchemaRow } from './limits-rows';
import {
  AssociationView,
  INCLUDE_ALL,
  ObjectSchemaView,
  ObjectTypeDefinitionView,
  SchemaIncludes,
} from './schema.views';
import { iso, toPropertyView } from './property.views';

/**
 * The schemas API's reads (custom object schemas, their definitions and associations), from the
 * `limits` projection. Apart from LimitsQueries, which answers the limits and property reads.
 */
@Injectable()
export class SchemasQueries {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  listSchemas(hubId: number, archived: boolean, include: SchemaIncludes = INCLUDE_ALL): ObjectSchemaView[] {
    const rows = cachedStatement(
      this.db,
      'SELECT * FROM limits_schemas WHERE hub_id = ? AND archived = ? ORDER BY CAST(id AS INTEGER)',
    ).all(hubId, archived ? 1 : 0) as SchemaRow[];
    return rows.map((r) => this.toSchema(r, include));
  }

  private activeSchemaRows(hubId: number): SchemaRow[] {
    return cachedStatement(this.db, 'SELECT * FROM limits_schemas WHERE hub_id = ? AND archived = 0').all(
      hubId,
    ) as SchemaRow[];
  }

  private activeSchemaRow(hubId: number, rawObjectType: string): SchemaRow | undefined {
    return schemaNamed(this.activeSchemaRows(hubId), rawObjectType);
  }

  getSchema(hubId: number, rawObjectType: string, include: SchemaIncludes = INCLUDE_ALL): ObjectSchemaView {
    const row = this.activeSchemaRow(hubId, rawObjectType);
    if (!row) throw HubSpotError.notFound(`Object type ${rawObjectType} not found`);
    return this.toSchema(row, include);
  }

  /** POST /crm/v3/schemas/batch/read: every input must name an active schema (one error per one that does not). */
  batchReadSchemas(hubId: number, inputs: readonly string[], include: SchemaIncludes): ObjectSchemaView[] {
    const active = this.activeSchemaRows(hubId); // one read for the whole batch
    const rows = inputs.map((raw) => schemaNamed(active, raw));
    const missing = inputs.flatMap((raw, i) =>
      rows[i] ? [] : [{ message: `Object type ${raw} not found`, in: `inputs[${i}]`, code: 'OBJECT_NOT_FOUND' }],
    );
    if (missing.length > 0) {
      throw new HubSpotError(404, 'OBJECT_NOT_FOUND', `Object types not found: ${missing.length} of ${inputs.length}`, {
        errors: missing,
      });
    }
    const seen = new Set<string>();
    return rows
      .filter((r): r is SchemaRow => r !== undefined && !seen.has(r.object_type_id) && !!seen.add(r.object_type_id))
      .map((r) => this.toSchema(r, include));
  }

  /** The PATCH answer (ObjectTypeDefinition). */
  getObjectTypeDefinition(hubId: number, objectTypeId: string): ObjectTypeDefinitionView {
    const schema = this.getSchema(hubId, objectTypeId, { associations: false, properties: false, audit: true });
    const { properties: _p, associations: _a, createdByUserId: _c, updatedByUserId: _u, ...definition } = schema;
    return { ...definition, portalId: hubId, createdAt: schema.createdAt!, updatedAt: schema.updatedAt! };
  }

  /** One association definition of an active schema, as the POST answers it. */
  getAssociation(hubId: number, fromObjectTypeId: string, id: string): AssociationView {
    const found = this.getSchema(hubId, fromObjectTypeId, {
      associations: true,
      properties: false,
      audit: true,
    }).associations.find((a) => a.id === id);
    if (!found) throw HubSpotError.notFound(`Association ${id} not found`);
    return found;
  }

  private toSchema(row: SchemaRow, include: SchemaIncludes): ObjectSchemaView {
    const body = JSON.parse(row.body) as SchemaBody;
    // HubSpot's own properties of every custom object first (not counted, not archivable), then the account's.
    const defaults = include.properties
      ? hubSpotDefinedPropertiesOf({ kind: 'custom', objectTypeId: row.object_type_id, name: row.name }).map((p) =>
          toPropertyView(p, { hubspotDefined: true, archived: false }),
        )
      : [];
    const properties = include.properties
      ? [
          ...defaults,
          ...(
            cachedStatement(
              this.db,
              'SELECT * FROM limits_properties WHERE hub_id = ? AND object_type_id = ? AND archived = 0 ORDER BY created_at, name',
            ).all(row.hub_id, row.object_type_id) as PropertyRow[]
          ).map(rowToProperty),
        ]
      : [];
    const view: ObjectSchemaView = {
      id: row.id,
      objectTypeId: row.object_type_id,
      fullyQualifiedName: row.fully_qualified_name,
      name: row.name,
      labels: { singular: row.singular_label, plural: row.plural_label },
      secondaryDisplayProperties: body.secondaryDisplayProperties,
      searchableProperties: body.searchableProperties,
      requiredProperties: body.requiredProperties,
      properties,
      associations: include.associations
        ? body.associations.map((a) => {
            const at = iso(a.createdAt ?? row.created_at);
            const out: AssociationView = {
              id: a.id,
              fromObjectTypeId: a.fromObjectTypeId,
              toObjectTypeId: a.toObjectTypeId,
            };
            if (a.name !== null) out.name = a.name;
            return include.audit ? { ...out, createdAt: at, updatedAt: at } : out;
          })
        : [],
      archived: row.archived === 1,
    };
    if (include.audit) {
      view.createdAt = iso(row.created_at);
      view.updatedAt = iso(row.updated_at);
      if (row.created_user_id !== null) view.createdByUserId = row.created_user_id;
      const updatedBy = body.updatedUserId !== undefined ? body.updatedUserId : row.created_user_id;
      if (updatedBy !== null) view.updatedByUserId = updatedBy;
    }
    if (body.description !== null) view.description = body.description;
    if (body.primaryDisplayProperty !== null) view.primaryDisplayProperty = body.primaryDisplayProperty;
    return JSON.parse(JSON.stringify(view)) as ObjectSchemaView; // drops undefined names
  }
}

/** The row an object type names: its id, name or fully qualified name (case-insensitive). */
function schemaNamed(rows: readonly SchemaRow[], rawObjectType: string): SchemaRow | undefined {
  const key = rawObjectType.trim().toLowerCase();
  return rows.find(
    (s) => s.object_type_id === key || s.name.toLowerCase() === key || s.fully_qualified_name.toLowerCase() === key,
  );
}
