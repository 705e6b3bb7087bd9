import {
  AssociationDefinition,
  LimitOverrides,
  LimitsEvent,
  LimitsEventType,
  PropertyDefinition,
} from './limits-events';
import {
  CUSTOM_OBJECT_TYPE_ID,
  CustomTypeRef,
  fullyQualifiedNameOf,
  isHubSpotDefinedProperty,
  ResolvedObjectType,
  standardObjectTypeById,
} from './object-types';
import type { PropertyGroupDefinition } from './property-groups';

/**
 * One account's properties, property groups and custom object schemas, folded from its own
 * stream. The ceilings are checked against this state, so two concurrent creates for the last
 * slot cannot both pass: the second append fails on the expected revision and is decided again
 * with the first one counted.
 *
 * Only what a decision needs is kept: active properties (an archived one is dropped, its name is
 * free again) and the counters the ceilings compare, kept up to date by `evolve` so no decision
 * walks every property.
 */
export interface PropertySlot {
  objectTypeId: string;
  /** The definition as its last event carried it (shared with that event, never copied). */
  definition: PropertyDefinition;
  calculated: boolean;
}

/** The active properties and the account's own groups of one object type. */
export interface ObjectTypeProperties {
  byName: Map<string, PropertySlot>;
  /** How many of `byName` are calculated. */
  calculated: number;
  /** Active properties per group name (a group holding any cannot be archived). */
  perGroup: Map<string, number>;
  /** Groups the account created, active ones only (HubSpot-defined groups are in property-groups.ts). */
  groups: Map<string, PropertyGroupDefinition>;
}

export interface SchemaSlot extends CustomTypeRef {
  id: string;
}

export interface AccountLimitsState {
  /** Keyed by objectTypeId; a purged schema's entry is gone. */
  propertiesByType: Map<string, ObjectTypeProperties>;
  /** Keyed by objectTypeId; purged schemas are gone. */
  schemas: Record<string, SchemaSlot>;
  lastSchemaSeq: number;
  lastAssociationId: number;
  /** Association definitions by id: the schemas' own and those added later (association labels). */
  associations: Record<string, AssociationDefinition>;
  overrides: LimitOverrides;
}

export const initialAccountLimitsState = (): AccountLimitsState => ({
  propertiesByType: new Map(),
  schemas: {},
  lastSchemaSeq: 0,
  lastAssociationId: 0,
  associations: {},
  overrides: {},
});

const emptyType = (): ObjectTypeProperties => ({
  byName: new Map(),
  calculated: 0,
  perGroup: new Map(),
  groups: new Map(),
});

/** The object type's entry, made on first use. */
export function typeEntry(state: AccountLimitsState, objectTypeId: string): ObjectTypeProperties {
  let entry = state.propertiesByType.get(objectTypeId);
  if (!entry) {
    entry = emptyType();
    state.propertiesByType.set(objectTypeId, entry);
  }
  return entry;
}

function addToGroup(entry: ObjectTypeProperties, groupName: string, delta: number): void {
  const n = (entry.perGroup.get(groupName) ?? 0) + delta;
  if (n <= 0) entry.perGroup.delete(groupName);
  else entry.perGroup.set(groupName, n);
}

function putProperty(
  state: AccountLimitsState,
  objectTypeId: string,
  definition: PropertyDefinition,
  calculated: boolean,
) {
  const entry = typeEntry(state, objectTypeId);
  const previous = entry.byName.get(definition.name);
  if (previous) removeProperty(entry, previous);
  entry.byName.set(definition.name, { objectTypeId, definition, calculated });
  if (calculated) entry.calculated++;
  addToGroup(entry, definition.groupName, 1);
}

function removeProperty(entry: ObjectTypeProperties, slot: PropertySlot): void {
  entry.byName.delete(slot.definition.name);
  if (slot.calculated) entry.calculated--;
  addToGroup(entry, slot.definition.groupName, -1);
}

/**
 * Folds one event into the state **in place** and returns it. The state belongs to the one fold
 * that built it (load, decide, fold the appended events), so nothing else sees it change; copying
 * the whole map per event, as before, made replaying an account quadratic in its property count.
 */
export function evolveAccountLimits(state: AccountLimitsState, event: LimitsEvent): AccountLimitsState {
  switch (event.type) {
    case LimitsEventType.PropertyCreated:
      putProperty(state, event.data.objectTypeId, event.data.property, event.data.calculated);
      return state;
    case LimitsEventType.PropertyUpdated:
      putProperty(state, event.data.objectTypeId, event.data.property, event.data.calculated);
      return state;
    case LimitsEventType.PropertyArchived: {
      const entry = state.propertiesByType.get(event.data.objectTypeId);
      const slot = entry?.byName.get(event.data.name);
      if (entry && slot) removeProperty(entry, slot);
      return state;
    }
    case LimitsEventType.PropertyGroupCreated:
    case LimitsEventType.PropertyGroupUpdated:
      typeEntry(state, event.data.objectTypeId).groups.set(event.data.group.name, event.data.group);
      return state;
    case LimitsEventType.PropertyGroupArchived:
      state.propertiesByType.get(event.data.objectTypeId)?.groups.delete(event.data.name);
      return state;
    case LimitsEventType.CustomObjectSchemaCreated: {
      const { objectTypeId, id, name, associations } = event.data;
      const seq = Number(CUSTOM_OBJECT_TYPE_ID.exec(objectTypeId)?.[1] ?? 0);
      state.schemas[objectTypeId] = { objectTypeId, id, name, archived: false };
      state.lastSchemaSeq = Math.max(state.lastSchemaSeq, seq);
      for (const a of associations) {
        state.lastAssociationId = Math.max(state.lastAssociationId, Number(a.id));
        state.associations[a.id] = a;
      }
      return state;
    }
    case LimitsEventType.CustomObjectSchemaArchived: {
      const slot = state.schemas[event.data.objectTypeId];
      if (slot) state.schemas[slot.objectTypeId] = { ...slot, archived: true };
      return state;
    }
    case LimitsEventType.CustomObjectSchemaPurged: {
      const { objectTypeId } = event.data;
      delete state.schemas[objectTypeId];
      state.propertiesByType.delete(objectTypeId);
      for (const [id, a] of Object.entries(state.associations))
        if (a.fromObjectTypeId === objectTypeId) delete state.associations[id];
      return state;
    }
    case LimitsEventType.AccountLimitsOverridden:
      state.overrides = { ...event.data.overrides };
      return state;
    case LimitsEventType.AssociationDefinitionCreated: {
      const { association } = event.data;
      state.associations[association.id] = association;
      state.lastAssociationId = Math.max(
        state.lastAssociationId,
        Number(association.id),
        Number(association.inverseId ?? 0),
      );
      return state;
    }
    case LimitsEventType.AssociationDefinitionUpdated: {
      const { associationId, label, inverseLabel } = event.data;
      const a = state.associations[associationId];
      if (a) state.associations[associationId] = { ...a, label, inverseLabel };
      return state;
    }
    case LimitsEventType.AssociationDefinitionDeleted:
      delete state.associations[event.data.associationId];
      return state;
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

/** Usage per ceiling; properties of an archived custom object type count for nothing. */
export function usageOf(state: AccountLimitsState): {
  calculatedProperties: number;
  customObjectTypes: number;
  customPropertiesByType: Record<string, number>;
} {
  const customPropertiesByType: Record<string, number> = {};
  let calculatedProperties = 0;
  for (const [objectTypeId, entry] of state.propertiesByType) {
    if (!isActiveType(state, objectTypeId)) continue;
    if (entry.byName.size > 0) customPropertiesByType[objectTypeId] = entry.byName.size;
    calculatedProperties += entry.calculated;
  }
  return {
    calculatedProperties,
    customObjectTypes: Object.values(state.schemas).filter((s) => !s.archived).length,
    customPropertiesByType,
  };
}

/* ---------- lookups the decisions need ---------- */

/** An active property of an object type, or undefined. */
export function propertyOf(state: AccountLimitsState, objectTypeId: string, name: string): PropertySlot | undefined {
  return state.propertiesByType.get(objectTypeId)?.byName.get(name);
}

/** Whether a name is in use on one object type: a HubSpot-defined property or an active one of the account. */
export function isNameTaken(state: AccountLimitsState, resolved: ResolvedObjectType, name: string): boolean {
  return isHubSpotDefinedProperty(resolved, name) || propertyOf(state, resolved.objectTypeId, name) !== undefined;
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
