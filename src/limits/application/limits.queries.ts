import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Tier, TierLimits } from '../../platform/tiers';
import { DirectoryQueries } from '../../directory';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { unknownObjectType } from '../domain/limit-errors';
import { effectiveLimits, percentage } from '../domain/ceilings';
import type { AssociationDefinition, LimitOverrides, PropertyDefinition } from '../domain/limits-events';
import { CustomTypeRef, resolveObjectType, ResolvedObjectType, STANDARD_OBJECT_TYPES } from '../domain/object-types';
import {
  AssociationLabelLimit,
  AssociationView,
  CalculatedPropertyLimits,
  CustomObjectTypeLimits,
  CustomPropertyLimits,
  INCLUDE_ALL,
  iso,
  ObjectSchemaView,
  ObjectTypeDefinitionView,
  PropertyView,
  SchemaIncludes,
  toPropertyView,
} from './limits.views';
import { cachedStatement } from '../../platform/projections/statement-cache';

export interface PropertyRow {
  hub_id: number;
  object_type_id: string;
  name: string;
  definition: string;
  calculated: number;
  created_user_id: number | null;
  created_at: number;
  updated_at: number;
  archived: number;
  archived_at: number | null;
}

interface SchemaRow {
  hub_id: number;
  object_type_id: string;
  id: string;
  name: string;
  fully_qualified_name: string;
  singular_label: string;
  plural_label: string;
  body: string;
  created_user_id: number | null;
  created_at: number;
  updated_at: number;
  archived: number;
  archived_at: number | null;
}

interface SchemaBody {
  description: string | null;
  primaryDisplayProperty: string | null;
  secondaryDisplayProperties: string[];
  searchableProperties: string[];
  requiredProperties: string[];
  associations: AssociationDefinition[];
  updatedUserId?: number | null;
}

interface UsageRow {
  object_type_id: string;
  singular_label: string;
  plural_label: string;
  custom_properties: number;
  calculated_properties: number;
}

export interface AccountLimitsView {
  hubId: number;
  tier: Tier;
  tierLimits: TierLimits;
  overrides: LimitOverrides;
  effectiveLimits: TierLimits;
  usage: {
    calculatedProperties: number;
    customObjectTypes: number;
    customPropertiesByObjectType: Record<string, number>;
    /** Association labels per pair, keyed `fromObjectTypeId:toObjectTypeId`. */
    associationLabelsByPair: Record<string, number>;
  };
}

/** The read side of the limits module, served from the `limits` projection. */
@Injectable()
export class LimitsQueries {
  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: DirectoryQueries,
  ) {}

  /** The account's tier; an account the directory does not know cannot hold anything. */
  tierOf(hubId: number): Tier {
    const account = this.directory.getAccount(hubId);
    if (!account) throw HubSpotError.notFound(`Account ${hubId} not found`);
    return account.tier;
  }

  overridesOf(hubId: number): LimitOverrides {
    const row = cachedStatement(this.db, 'SELECT overrides FROM limits_overrides WHERE hub_id = ?').get(hubId) as
      { overrides: string } | undefined;
    return row ? (JSON.parse(row.overrides) as LimitOverrides) : {};
  }

  limitsOf(hubId: number): { tier: Tier; tierLimits: TierLimits; limits: TierLimits } {
    const tier = this.tierOf(hubId);
    const tierLimits = this.config.tierLimits[tier];
    return { tier, tierLimits, limits: effectiveLimits(tierLimits, this.overridesOf(hubId)) };
  }

  private activeSchemas(hubId: number): SchemaRow[] {
    return cachedStatement(
      this.db,
      'SELECT * FROM limits_schemas WHERE hub_id = ? AND archived = 0 ORDER BY CAST(id AS INTEGER)',
    ).all(hubId) as SchemaRow[];
  }

  /** Resolves a path segment for reads: standard types, active custom schemas (id, fully qualified name, name). */
  resolve(hubId: number, raw: string): ResolvedObjectType {
    const refs: CustomTypeRef[] = this.activeSchemas(hubId).map((s) => ({
      objectTypeId: s.object_type_id,
      name: s.name,
      archived: false,
    }));
    const resolved = resolveObjectType(raw, hubId, refs);
    if (!resolved) throw unknownObjectType(raw);
    return resolved;
  }

  listProperties(hubId: number, rawObjectType: string, archived: boolean): PropertyView[] {
    const resolved = this.resolve(hubId, rawObjectType);
    const rows = cachedStatement(
      this.db,
      `SELECT * FROM limits_properties WHERE hub_id = ? AND object_type_id = ? AND archived = ? ORDER BY created_at, name`,
    ).all(hubId, resolved.objectTypeId, archived ? 1 : 0) as PropertyRow[];
    const defaults =
      resolved.kind === 'standard' && !archived
        ? resolved.type.defaultProperties.map((p) => toPropertyView(p, { hubspotDefined: true, archived: false }))
        : [];
    return [...defaults, ...rows.map(rowToProperty)];
  }

  getProperty(hubId: number, rawObjectType: string, name: string, archived: boolean): PropertyView {
    const resolved = this.resolve(hubId, rawObjectType);
    if (resolved.kind === 'standard' && !archived) {
      const builtIn = resolved.type.defaultProperties.find((p) => p.name === name);
      if (builtIn) return toPropertyView(builtIn, { hubspotDefined: true, archived: false });
    }
    const row = cachedStatement(
      this.db,
      'SELECT * FROM limits_properties WHERE hub_id = ? AND object_type_id = ? AND name = ? AND archived = ?',
    ).get(hubId, resolved.objectTypeId, name, archived ? 1 : 0) as PropertyRow | undefined;
    if (!row) throw HubSpotError.notFound(`Property ${name} does not exist`);
    return rowToProperty(row);
  }

  listSchemas(hubId: number, archived: boolean, include: SchemaIncludes = INCLUDE_ALL): ObjectSchemaView[] {
    const rows = cachedStatement(
      this.db,
      'SELECT * FROM limits_schemas WHERE hub_id = ? AND archived = ? ORDER BY CAST(id AS INTEGER)',
    ).all(hubId, archived ? 1 : 0) as SchemaRow[];
    return rows.map((r) => this.toSchema(r, include));
  }

  private activeSchemaRow(hubId: number, rawObjectType: string): SchemaRow | undefined {
    const key = rawObjectType.trim().toLowerCase();
    return (
      cachedStatement(this.db, 'SELECT * FROM limits_schemas WHERE hub_id = ? AND archived = 0').all(
        hubId,
      ) as SchemaRow[]
    ).find(
      (s) => s.object_type_id === key || s.name.toLowerCase() === key || s.fully_qualified_name.toLowerCase() === key,
    );
  }

  getSchema(hubId: number, rawObjectType: string, include: SchemaIncludes = INCLUDE_ALL): ObjectSchemaView {
    const row = this.activeSchemaRow(hubId, rawObjectType);
    if (!row) throw HubSpotError.notFound(`Object type ${rawObjectType} not found`);
    return this.toSchema(row, include);
  }

  /** POST /crm/v3/schemas/batch/read: every input must name an active schema (one error per one that does not). */
  batchReadSchemas(hubId: number, inputs: readonly string[], include: SchemaIncludes): ObjectSchemaView[] {
    const rows = inputs.map((raw) => this.activeSchemaRow(hubId, raw));
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
    const properties = include.properties
      ? (
          cachedStatement(
            this.db,
            'SELECT * FROM limits_properties WHERE hub_id = ? AND object_type_id = ? AND archived = 0 ORDER BY created_at, name',
          ).all(row.hub_id, row.object_type_id) as PropertyRow[]
        ).map(rowToProperty)
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

  /**
   * Association labels per (from, to) pair of active object types that has at least one definition:
   * usage and allLabels are its named definitions, the limit the per-pair ceiling in force.
   */
  associationLabelLimits(hubId: number, from?: string, to?: string): AssociationLabelLimit[] {
    const { limits } = this.limitsOf(hubId);
    const schemas = this.activeSchemas(hubId);
    const refs: CustomTypeRef[] = schemas.map((s) => ({
      objectTypeId: s.object_type_id,
      name: s.name,
      archived: false,
    }));
    const filter = (raw: string | undefined, field: string): string | undefined => {
      if (raw === undefined || raw === '') return undefined;
      const resolved = resolveObjectType(raw, hubId, refs);
      if (!resolved) {
        const message = `Unable to infer object type from: ${raw.slice(0, 100)}`;
        throw HubSpotError.validation(message, [{ message, in: field, code: 'INVALID_OBJECT_TYPE' }]);
      }
      return resolved.objectTypeId;
    };
    const fromId = filter(from, 'fromObjectTypeId');
    const toId = filter(to, 'toObjectTypeId');
    const typeOf = new Map<string, { objectTypeId: string; singularLabel: string; pluralLabel: string }>([
      ...STANDARD_OBJECT_TYPES.map(
        (t) =>
          [
            t.objectTypeId,
            { objectTypeId: t.objectTypeId, singularLabel: t.singularLabel, pluralLabel: t.pluralLabel },
          ] as const,
      ),
      ...schemas.map(
        (s) =>
          [
            s.object_type_id,
            { objectTypeId: s.object_type_id, singularLabel: s.singular_label, pluralLabel: s.plural_label },
          ] as const,
      ),
    ]);
    const pairs = new Map<string, { from: string; to: string; labels: string[] }>();
    for (const s of schemas) {
      for (const a of (JSON.parse(s.body) as SchemaBody).associations) {
        if (!typeOf.has(a.toObjectTypeId)) continue; // its target was archived
        if ((fromId && a.fromObjectTypeId !== fromId) || (toId && a.toObjectTypeId !== toId)) continue;
        const k = `${a.fromObjectTypeId}>${a.toObjectTypeId}`;
        const pair = pairs.get(k) ?? { from: a.fromObjectTypeId, to: a.toObjectTypeId, labels: [] };
        if (a.name !== null) pair.labels.push(a.name);
        pairs.set(k, pair);
      }
    }
    const order = (id: string) => id.split('-').map(Number) as [number, number];
    const cmp = (a: string, b: string) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1];
    return [...pairs.values()]
      .sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to))
      .map((p) => ({
        fromObjectType: typeOf.get(p.from)!,
        toObjectType: typeOf.get(p.to)!,
        limit: limits.associationLabels,
        usage: p.labels.length,
        percentage: percentage(p.labels.length, limits.associationLabels),
        allLabels: p.labels,
      }));
  }

  private usageRows(hubId: number): UsageRow[] {
    return cachedStatement(
      this.db,
      `SELECT object_type_id, singular_label, plural_label, custom_properties, calculated_properties
         FROM limits_usage WHERE hub_id = ? ORDER BY object_type_id`,
    ).all(hubId) as UsageRow[];
  }

  private customObjectTypeUsage(hubId: number): number {
    const row = cachedStatement(this.db, 'SELECT custom_object_types FROM limits_account_usage WHERE hub_id = ?').get(
      hubId,
    ) as { custom_object_types: number } | undefined;
    return row?.custom_object_types ?? 0;
  }

  calculatedPropertyLimits(hubId: number): CalculatedPropertyLimits {
    const { limits } = this.limitsOf(hubId);
    const byObjectType = this.usageRows(hubId)
      .filter((r) => r.calculated_properties > 0)
      .sort(byTypeId)
      .map((r) => ({
        objectTypeId: r.object_type_id,
        singularLabel: r.singular_label,
        pluralLabel: r.plural_label,
        usage: r.calculated_properties,
      }));
    const overallUsage = byObjectType.reduce((n, r) => n + r.usage, 0);
    return {
      overallLimit: limits.calculatedProperties,
      overallUsage,
      overallPercentage: percentage(overallUsage, limits.calculatedProperties),
      byObjectType,
    };
  }

  customObjectTypeLimits(hubId: number): CustomObjectTypeLimits {
    const { limits } = this.limitsOf(hubId);
    const usage = this.customObjectTypeUsage(hubId);
    return { limit: limits.customObjectTypes, usage, percentage: percentage(usage, limits.customObjectTypes) };
  }

  /** Every standard object type and every active custom type, each with the per-object-type ceiling. */
  customPropertyLimits(hubId: number): CustomPropertyLimits {
    const { limits } = this.limitsOf(hubId);
    const usage = new Map(this.usageRows(hubId).map((r) => [r.object_type_id, r.custom_properties]));
    const types = [
      ...STANDARD_OBJECT_TYPES.map((t) => ({
        objectTypeId: t.objectTypeId,
        singularLabel: t.singularLabel,
        pluralLabel: t.pluralLabel,
      })),
      ...this.activeSchemas(hubId).map((s) => ({
        objectTypeId: s.object_type_id,
        singularLabel: s.singular_label,
        pluralLabel: s.plural_label,
      })),
    ];
    const byObjectType = types.map((t) => {
      const used = usage.get(t.objectTypeId) ?? 0;
      return {
        ...t,
        usage: used,
        limit: limits.customProperties,
        percentage: percentage(used, limits.customProperties),
      };
    });
    const overallLimit = byObjectType.reduce((n, r) => n + r.limit, 0);
    const overallUsage = byObjectType.reduce((n, r) => n + r.usage, 0);
    return { overallLimit, overallUsage, overallPercentage: percentage(overallUsage, overallLimit), byObjectType };
  }

  accountLimits(hubId: number): AccountLimitsView {
    const { tier, tierLimits, limits } = this.limitsOf(hubId);
    const rows = this.usageRows(hubId);
    return {
      hubId,
      tier,
      tierLimits,
      overrides: this.overridesOf(hubId),
      effectiveLimits: limits,
      usage: {
        calculatedProperties: rows.reduce((n, r) => n + r.calculated_properties, 0),
        customObjectTypes: this.customObjectTypeUsage(hubId),
        customPropertiesByObjectType: Object.fromEntries(rows.map((r) => [r.object_type_id, r.custom_properties])),
        associationLabelsByPair: Object.fromEntries(
          this.associationLabelLimits(hubId).map((p) => [
            `${p.fromObjectType.objectTypeId}:${p.toObjectType.objectTypeId}`,
            p.usage,
          ]),
        ),
      },
    };
  }
}

/** 0-x before 2-x, then numerically. */
function byTypeId(a: { object_type_id: string }, b: { object_type_id: string }): number {
  const [ak, an] = a.object_type_id.split('-').map(Number) as [number, number];
  const [bk, bn] = b.object_type_id.split('-').map(Number) as [number, number];
  return ak - bk || an - bn;
}

export function rowToProperty(row: PropertyRow): PropertyView {
  return toPropertyView(JSON.parse(row.definition) as PropertyDefinition, {
    hubspotDefined: false,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archived: row.archived === 1,
    archivedAt: row.archived_at,
    createdUserId: row.created_user_id,
  });
}
