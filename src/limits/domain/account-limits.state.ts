import { AssociationDefinition, LimitOverrides, LimitsEvent, LimitsEventType } from './limits-events';
import {
  CUSTOM_OBJECT_TYPE_ID,
  CustomTypeRef,
  fullyQualifiedNameOf,
  ResolvedObjectType,
  standardObjectTypeById,
} from './object-types';

/**
 * One account's calculated properties, custom properties and custom object schemas, folded from
 * its own stream. The ceilings are checked against this state, so two concurrent creates for the
 * last slot cannot both pass: the second append fails on the expected revision and is decided
 * again with the first one counted.
 */
export interface PropertySlot {
  objectTypeId: string;
  name: string;
  calculated: boolean;
  archived: boolean;
}

export interface SchemaSlot extends CustomTypeRef {
  id: string;
}

export interface AccountLimitsState {
  /** Keyed `${objectTypeId}/${name}` (propertyKey). */
  properties: Record<string, PropertySlot>;
  /** Keyed by objectTypeId; purged schemas are gone. */
  schemas: Record<string, SchemaSlot>;
  lastSchemaSeq: number;
  lastAssociationId: number;
  /** Association definitions by id: the schemas' own and those added later (association labels). */
  associations: Record<string, AssociationDefinition>;
  overrides: LimitOverrides;
}

export const propertyKey = (objectTypeId: string, name: string) => `${objectTypeId}/${name}`;

export const initialAccountLimitsState = (): AccountLimitsState => ({
  properties: {},
  schemas: {},
  lastSchemaSeq: 0,
  lastAssociationId: 0,
  associations: {},
  overrides: {},
});

export function evolveAccountLimits(state: AccountLimitsState, event: LimitsEvent): AccountLimitsState {
  switch (event.type) {
    case LimitsEventType.PropertyCreated: {
      const { objectTypeId, property, calculated } = event.data;
      return {
        ...state,
        properties: {
          ...state.properties,
          [propertyKey(objectTypeId, property.name)]: {
            objectTypeId,
            name: property.name,
            calculated,
            archived: false,
          },
        },
      };
    }
    case LimitsEventType.PropertyArchived: {
      const k = propertyKey(event.data.objectTypeId, event.data.name);
      const slot = state.properties[k];
      if (!slot) return state;
      return { ...state, properties: { ...state.properties, [k]: { ...slot, archived: true } } };
    }
    case LimitsEventType.CustomObjectSchemaCreated: {
      const { objectTypeId, id, name, associations } = event.data;
      const seq = Number(CUSTOM_OBJECT_TYPE_ID.exec(objectTypeId)?.[1] ?? 0);
      return {
        ...state,
        schemas: { ...state.schemas, [objectTypeId]: { objectTypeId, id, name, archived: false } },
        lastSchemaSeq: Math.max(state.lastSchemaSeq, seq),
        lastAssociationId: Math.max(state.lastAssociationId, ...associations.map((a) => Number(a.id))),
        associations: { ...state.associations, ...Object.fromEntries(associations.map((a) => [a.id, a])) },
      };
    }
    case LimitsEventType.CustomObjectSchemaArchived: {
      const slot = state.schemas[event.data.objectTypeId];
      if (!slot) return state;
      return { ...state, schemas: { ...state.schemas, [slot.objectTypeId]: { ...slot, archived: true } } };
    }
    case LimitsEventType.CustomObjectSchemaPurged: {
      const { objectTypeId } = event.data;
      const schemas = { ...state.schemas };
      delete schemas[objectTypeId];
      const properties: Record<string, PropertySlot> = {};
      for (const [k, p] of Object.entries(state.properties)) if (p.objectTypeId !== objectTypeId) properties[k] = p;
      const associations: Record<string, AssociationDefinition> = {};
      for (const [id, a] of Object.entries(state.associations))
        if (a.fromObjectTypeId !== objectTypeId) associations[id] = a;
      return { ...state, schemas, properties, associations };
    }
    case LimitsEventType.AccountLimitsOverridden:
      return { ...state, overrides: { ...event.data.overrides } };
    case LimitsEventType.AssociationDefinitionCreated: {
      const { association } = event.data;
      return {
        ...state,
        associations: { ...state.associations, [association.id]: association },
        lastAssociationId: Math.max(state.lastAssociationId, Number(association.id)),
      };
    }
    case LimitsEventType.AssociationDefinitionDeleted: {
      const associations = { ...state.associations };
      delete associations[event.data.associationId];
      return { ...state, associations };
    }
    default:
      return state;
  }
}

/* ---------- usage, as the ceilings count it ---------- */

export function isActiveType(state: AccountLimitsState, objectTypeId: string): boolean {
  if (standardObjectTypeById(objectTypeId)) return true;
  const s = state.schemas[objectTypeId];
  return s !== undefined && !s.archived;
}

function activeProperties(state: AccountLimitsState): PropertySlot[] {
  return Object.values(state.properties).filter((p) => !p.archived && isActiveType(state, p.objectTypeId));
}

export function usageOf(state: AccountLimitsState): {
  calculatedProperties: number;
  customObjectTypes: number;
  customPropertiesByType: Record<string, number>;
} {
  const active = activeProperties(state);
  const customPropertiesByType: Record<string, number> = {};
  for (const p of active) customPropertiesByType[p.objectTypeId] = (customPropertiesByType[p.objectTypeId] ?? 0) + 1;
  return {
    calculatedProperties: active.filter((p) => p.calculated).length,
    customObjectTypes: Object.values(state.schemas).filter((s) => !s.archived).length,
    customPropertiesByType,
  };
}

/* ---------- lookups the decisions need ---------- */

/** Property names in use on one object type: HubSpot-defined ones and the account's active ones. */
export function takenNames(state: AccountLimitsState, resolved: ResolvedObjectType): Set<string> {
  const names = new Set<string>();
  if (resolved.kind === 'standard') for (const p of resolved.type.defaultProperties) names.add(p.name);
  for (const p of Object.values(state.properties)) {
    if (p.objectTypeId === resolved.objectTypeId && !p.archived) names.add(p.name);
  }
  return names;
}

/** DELETE /crm/v3/schemas/{objectType} finds archived schemas too (to purge them); an active one wins. */
export function findSchema(state: AccountLimitsState, raw: string, hubId: number): SchemaSlot | null {
  const k = raw.trim().toLowerCase();
  const all = Object.values(state.schemas);
  return (
    all.find((s) => !s.archived && matches(s, k, hubId)) ?? all.find((s) => s.archived && matches(s, k, hubId)) ?? null
  );
}

const matches = (s: SchemaSlot, k: string, hubId: number) =>
  s.objectTypeId === k || s.name.toLowerCase() === k || fullyQualifiedNameOf(hubId, s.name).toLowerCase() === k;
