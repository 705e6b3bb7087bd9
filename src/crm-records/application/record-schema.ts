import { Injectable } from '@nestjs/common';
import { LimitsQueries, PropertiesQueries, type PropertyView, standardObjectType } from '../../crm-schema';
import type { PropertyRule, PropertyRules } from '../domain/property-values';
import type { RecordScopeFamily } from '../domain/record-scopes';
import { SYSTEM_PROPERTIES } from '../domain/record-types';

/** An object type as records need it: its id, its scope family, and HubSpot's name for errors. */
export interface RecordType {
  objectTypeId: string;
  family: RecordScopeFamily;
}

const SENSITIVITIES = ['non_sensitive', 'sensitive', 'highly_sensitive'] as const;

/**
 * What records ask of the CRM schema module (through its index): a path's object type resolved
 * against the standard types and the account's custom schemas, and the account's property
 * definitions of a type, reduced to the rules a value check needs.
 */
@Injectable()
export class RecordSchema {
  constructor(
    private readonly limits: LimitsQueries,
    private readonly properties: PropertiesQueries,
  ) {}

  /** The type named by a path segment (id, name, singular or plural); HubSpot's 400 when none. */
  resolve(hubId: number, raw: string): RecordType {
    // The standard types need no read of the account's schemas (every GET by id asks this).
    const standard = standardObjectType(raw);
    if (standard) return { objectTypeId: standard.objectTypeId, family: standard.scopeName };
    const resolved = this.limits.resolve(hubId, raw);
    return {
      objectTypeId: resolved.objectTypeId,
      family: resolved.kind === 'standard' ? resolved.type.scopeName : 'custom',
    };
  }

  /** The rules of every active property of the type (all sensitivities), system values read-only. */
  rules(hubId: number, type: RecordType): PropertyRules {
    const rules = new Map<string, PropertyRule>();
    for (const dataSensitivity of SENSITIVITIES) {
      for (const p of this.properties.list(hubId, type.objectTypeId, { archived: false, dataSensitivity })) {
        rules.set(p.name, ruleOf(p, type));
      }
    }
    for (const name of SYSTEM_PROPERTIES) {
      const known = rules.get(name);
      rules.set(name, { ...(known ?? ruleOf(undefined, type, name)), readOnly: true });
    }
    return rules;
  }
}

function ruleOf(p: PropertyView | undefined, type: RecordType, name = p?.name ?? ''): PropertyRule {
  if (!p)
    return { name, type: 'string', fieldType: 'text', options: [], openOptions: false, readOnly: true, unique: false };
  const options = p.options.map((o) => o.value);
  return {
    name: p.name,
    type: p.type,
    fieldType: p.fieldType,
    options,
    // HubSpot's own enumerations without options here (pipelines, stages) take their values elsewhere.
    openOptions: p.type === 'enumeration' && options.length === 0 && p.hubspotDefined === true,
    readOnly: p.calculated || p.modificationMetadata.readOnlyValue,
    unique: p.hasUniqueValue || (type.objectTypeId === '0-1' && p.name === 'email'),
  };
}
