import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Tier, TierLimits } from '../../platform/tiers';
import { DirectoryQueries } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { unknownObjectType } from '../domain/limit-errors';
import { effectiveLimits, percentage } from '../domain/ceilings';
import type { LimitOverrides } from '../domain/limits-events';
import { CustomTypeRef, resolveObjectType, ResolvedObjectType, STANDARD_OBJECT_TYPES } from '../domain/object-types';
import {
  AssociationLabelLimit,
  CalculatedPropertyLimits,
  CustomObjectTypeLimits,
  CustomPropertyLimits,
} from './limits.views';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { SchemaBody, SchemaRow } from './limits-rows';
import { type AccountLimitFigures, LimitsReadCache } from './limits-read-cache';

export interface TypeLabels {
  objectTypeId: string;
  singularLabel: string;
  pluralLabel: string;
}

/** One (from, to) pair of object types and the names of its labels. */
interface LabelPair {
  from: string;
  to: string;
  labels: string[];
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

/**
 * The read side of the limits module (limits, usage, object types), served from the `limits`
 * projection; properties: PropertiesQueries, schemas: SchemasQueries.
 */
@Injectable()
export class LimitsQueries {
  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: DirectoryQueries,
    // The shared read model's figures kept per account; none over another database (the fallback's).
    private readonly cache?: LimitsReadCache,
  ) {}

  /** The account's tier; an account the directory does not know cannot hold anything. */
  tierOf(hubId: number): Tier {
    const account = this.directory.getAccount(hubId);
    if (!account) throw HubSpotError.notFound(`Account ${hubId} not found`);
    return account.tier;
  }

  overridesOf(hubId: number): Readonly<LimitOverrides> {
    return this.figuresOf(hubId).overrides;
  }

  limitsOf(hubId: number): { tier: Tier; tierLimits: TierLimits; limits: TierLimits } {
    const tier = this.tierOf(hubId);
    const tierLimits = this.config.tierLimits[tier];
    return { tier, tierLimits, limits: effectiveLimits(tierLimits, this.overridesOf(hubId)) };
  }

  /** The account's overrides and custom object type count: kept per account (LimitsReadCache), else two reads. */
  private figuresOf(hubId: number): AccountLimitFigures {
    return this.cache ? this.cache.figures(hubId, () => this.readFigures(hubId)) : this.readFigures(hubId);
  }

  private readFigures(hubId: number): AccountLimitFigures {
    const row = cachedStatement(this.db, 'SELECT overrides FROM limits_overrides WHERE hub_id = ?').get(hubId) as
      { overrides: string } | undefined;
    const usage = cachedStatement(this.db, 'SELECT custom_object_types FROM limits_account_usage WHERE hub_id = ?').get(
      hubId,
    ) as { custom_object_types: number } | undefined;
    return {
      overrides: row ? (JSON.parse(row.overrides) as LimitOverrides) : {},
      customObjectTypes: usage?.custom_object_types ?? 0,
    };
  }

  private activeSchemas(hubId: number): SchemaRow[] {
    return cachedStatement(
      this.db,
      'SELECT * FROM limits_schemas WHERE hub_id = ? AND archived = 0 ORDER BY CAST(id AS INTEGER)',
    ).all(hubId) as SchemaRow[];
  }

  /** The account's object types with their labels: every standard type, then its active custom schemas by id. */
  objectTypes(hubId: number): TypeLabels[] {
    return activeTypeLabels(this.activeSchemas(hubId));
  }

  /** Resolves a path segment for reads: standard types, active custom schemas (id, fully qualified name, name). */
  resolve(hubId: number, raw: string): ResolvedObjectType {
    const resolved = resolveObjectType(raw, hubId, this.customTypeRefs(hubId));
    if (!resolved) throw unknownObjectType(raw);
    return resolved;
  }

  /** Lazy: a standard type resolves without iterating, so the hot paths on contacts never read the schemas. */
  private *customTypeRefs(hubId: number): Generator<CustomTypeRef> {
    for (const s of this.activeSchemas(hubId)) yield { objectTypeId: s.object_type_id, name: s.name, archived: false };
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
      if (!resolved) throw unknownObjectType(raw, field, 100);
      return resolved.objectTypeId;
    };
    const { typeOf, pairs } = this.labelPairs(schemas, filter(from, 'fromObjectTypeId'), filter(to, 'toObjectTypeId'));
    return pairs.map((p) => ({
      fromObjectType: typeOf.get(p.from)!,
      toObjectType: typeOf.get(p.to)!,
      limit: limits.associationLabels,
      usage: p.labels.length,
      percentage: percentage(p.labels.length, limits.associationLabels),
      allLabels: p.labels,
    }));
  }

  /**
   * The named definitions of each (from, to) pair of active types with at least one definition,
   * ordered by from then to type id; `typeOf` labels every active type. Ceilings are the caller's.
   */
  private labelPairs(
    schemas: SchemaRow[],
    fromId?: string,
    toId?: string,
  ): { typeOf: Map<string, TypeLabels>; pairs: LabelPair[] } {
    const typeOf = new Map(activeTypeLabels(schemas).map((t) => [t.objectTypeId, t] as const));
    const pairs = new Map<string, LabelPair>();
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
    return {
      typeOf,
      pairs: [...pairs.values()].sort((a, b) => compareTypeIds(a.from, b.from) || compareTypeIds(a.to, b.to)),
    };
  }

  private usageRows(hubId: number): UsageRow[] {
    return cachedStatement(
      this.db,
      `SELECT object_type_id, singular_label, plural_label, custom_properties, calculated_properties
         FROM limits_usage WHERE hub_id = ? ORDER BY object_type_id`,
    ).all(hubId) as UsageRow[];
  }

  private customObjectTypeUsage(hubId: number): number {
    return this.figuresOf(hubId).customObjectTypes;
  }

  calculatedPropertyLimits(hubId: number): CalculatedPropertyLimits {
    const { limits } = this.limitsOf(hubId);
    const byObjectType = this.usageRows(hubId)
      .filter((r) => r.calculated_properties > 0)
      .sort((a, b) => compareTypeIds(a.object_type_id, b.object_type_id))
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
    const byObjectType = activeTypeLabels(this.activeSchemas(hubId)).map((t) => {
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
          this.labelPairs(this.activeSchemas(hubId)).pairs.map((p) => [`${p.from}:${p.to}`, p.labels.length]),
        ),
      },
    };
  }
}

/** Object type ids: 0-x before 2-x, then numerically. */
function compareTypeIds(a: string, b: string): number {
  const [ak, an] = a.split('-').map(Number) as [number, number];
  const [bk, bn] = b.split('-').map(Number) as [number, number];
  return ak - bk || an - bn;
}

/** Every standard type, then the given active custom schemas, with their labels. */
function activeTypeLabels(schemas: SchemaRow[]): TypeLabels[] {
  return [
    ...STANDARD_OBJECT_TYPES.map((t) => ({
      objectTypeId: t.objectTypeId,
      singularLabel: t.singularLabel,
      pluralLabel: t.pluralLabel,
    })),
    ...schemas.map((s) => ({
      objectTypeId: s.object_type_id,
      singularLabel: s.singular_label,
      pluralLabel: s.plural_label,
    })),
  ];
}
