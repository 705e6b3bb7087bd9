import type { Tier, TierLimits } from '../../platform/tiers';
import type { Decider } from '../../platform/commands/decider';
import { ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import { effectiveLimits, LIMIT_SUBCATEGORY, LimitName, mergeOverrides } from './ceilings';
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
  ResolvedObjectType,
  resolveObjectType,
  standardObjectType,
  standardObjectTypeById,
} from './object-types';
import { isCalculated, normalizeProperty, PropertyInput } from './property-rules';

/**
 * One account's calculated properties, custom properties and custom object schemas, folded from
 * its own stream. The ceilings are checked here, against this state, so two concurrent creates for
 * the last slot cannot both pass: the second append fails on the expected revision and is decided
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
  /** Keyed `${objectTypeId}/${name}`. */
  properties: Record<string, PropertySlot>;
  /** Keyed by objectTypeId; purged schemas are gone. */
  schemas: Record<string, SchemaSlot>;
  lastSchemaSeq: number;
  lastAssociationId: number;
  overrides: LimitOverrides;
}

/** Facts a command brings along: who asks, when, and the account's tier (from the directory). */
export interface CommandFacts {
  hubId: number;
  tier: Tier;
  tierLimits: TierLimits;
  userId: number | null;
  now: number;
}

export interface SchemaInput {
  name: string;
  labels: { singular?: string; plural?: string };
  description?: string;
  primaryDisplayProperty?: string;
  secondaryDisplayProperties?: string[];
  searchableProperties?: string[];
  requiredProperties: string[];
  properties: PropertyInput[];
  associatedObjects: string[];
}

export type AccountLimitsCommand =
  | { type: 'CreateProperty'; facts: CommandFacts; objectType: string; property: PropertyInput }
  | { type: 'ArchiveProperty'; facts: CommandFacts; objectType: string; name: string }
  | { type: 'CreateCustomObjectSchema'; facts: CommandFacts; schema: SchemaInput }
  | { type: 'ArchiveCustomObjectSchema'; facts: CommandFacts; objectType: string; purge: boolean }
  | { type: 'OverrideAccountLimits'; facts: CommandFacts; overrides: LimitOverrides };

const key = (objectTypeId: string, name: string) => `${objectTypeId}/${name}`;

export const initialAccountLimitsState = (): AccountLimitsState => ({
  properties: {},
  schemas: {},
  lastSchemaSeq: 0,
  lastAssociationId: 0,
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
          [key(objectTypeId, property.name)]: { objectTypeId, name: property.name, calculated, archived: false },
        },
      };
    }
    case LimitsEventType.PropertyArchived: {
      const k = key(event.data.objectTypeId, event.data.name);
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
      return { ...state, schemas, properties };
    }
    case LimitsEventType.AccountLimitsOverridden:
      return { ...state, overrides: { ...event.data.overrides } };
    default:
      return state;
  }
}

/* ---------- usage, as the ceilings count it ---------- */

function isActiveType(state: AccountLimitsState, objectTypeId: string): boolean {
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

/* ---------- decisions ---------- */

const LIMIT_WORDS: Record<LimitName, [string, string]> = {
  calculatedProperties: ['calculated property', 'calculated properties'],
  customObjectTypes: ['custom object type', 'custom object types'],
  customProperties: ['custom property', 'custom properties'],
};

/** 400 VALIDATION_ERROR naming the limit and the usage, as the issue asks. */
export function limitExceeded(
  name: LimitName,
  limit: number,
  usage: number,
  facts: CommandFacts,
  overridden: boolean,
  adding = 1,
  scope = '',
): HubSpotError {
  const [one, many] = LIMIT_WORDS[name];
  const source = overridden ? `set for this account` : `of the ${facts.tier} tier`;
  const what = adding === 1 ? `another ${one}` : `${adding} more ${many}`;
  const message =
    `You have reached your limit of ${many}${scope}: ${usage} of ${limit} in use (limit ${source}). ` +
    `Cannot create ${what}; archive unused ${many} or ask for a higher limit.`;
  const subCategory = LIMIT_SUBCATEGORY[name];
  const context = { limit: [String(limit)], usage: [String(usage)], tier: [facts.tier] };
  return new HubSpotError(400, 'VALIDATION_ERROR', message, {
    subCategory,
    context,
    errors: [{ message, code: 'LIMIT_EXCEEDED', subCategory, context }],
  });
}

export function unknownObjectType(raw: string): HubSpotError {
  return HubSpotError.validation(`Unable to infer object type from: ${raw}`, [
    { message: `Unable to infer object type from: ${raw}`, in: 'objectType', code: 'INVALID_OBJECT_TYPE' },
  ]);
}

function resolveActive(state: AccountLimitsState, raw: string, hubId: number): ResolvedObjectType {
  const resolved = resolveObjectType(raw, hubId, Object.values(state.schemas));
  if (!resolved) throw unknownObjectType(raw);
  return resolved;
}

function takenNames(state: AccountLimitsState, resolved: ResolvedObjectType): Set<string> {
  const names = new Set<string>();
  if (resolved.kind === 'standard') for (const p of resolved.type.defaultProperties) names.add(p.name);
  for (const p of Object.values(state.properties)) {
    if (p.objectTypeId === resolved.objectTypeId && !p.archived) names.add(p.name);
  }
  return names;
}

function checkCeiling(
  name: LimitName,
  usage: number,
  adding: number,
  state: AccountLimitsState,
  facts: CommandFacts,
  scope = '',
): void {
  const limit = effectiveLimits(facts.tierLimits, state.overrides)[name];
  if (usage + adding > limit) {
    const overridden = state.overrides[name] !== undefined && state.overrides[name] !== null;
    throw limitExceeded(name, limit, usage, facts, overridden, adding, scope);
  }
}

function decideCreateProperty(
  cmd: Extract<AccountLimitsCommand, { type: 'CreateProperty' }>,
  state: AccountLimitsState,
): LimitsEvent[] {
  const { facts } = cmd;
  const resolved = resolveActive(state, cmd.objectType, facts.hubId);
  const defaultGroup =
    resolved.kind === 'standard' ? resolved.type.defaultGroupName : `${resolved.name.toLowerCase()}_information`;
  const { definition, errors } = normalizeProperty(cmd.property, defaultGroup);
  if (errors.length > 0) throw invalid(errors);
  if (takenNames(state, resolved).has(definition.name)) {
    throw HubSpotError.conflict(`Property named '${definition.name}' already exists.`, 'PROPERTY_ALREADY_EXISTS');
  }
  const usage = usageOf(state);
  const calculated = isCalculated(definition.fieldType);
  if (calculated) checkCeiling('calculatedProperties', usage.calculatedProperties, 1, state, facts);
  checkCeiling(
    'customProperties',
    usage.customPropertiesByType[resolved.objectTypeId] ?? 0,
    1,
    state,
    facts,
    ` on object type ${resolved.objectTypeId}`,
  );
  return [
    {
      type: LimitsEventType.PropertyCreated,
      data: {
        hubId: facts.hubId,
        objectTypeId: resolved.objectTypeId,
        property: definition,
        calculated,
        createdUserId: facts.userId,
        createdAt: facts.now,
      },
    },
  ];
}

function decideArchiveProperty(
  cmd: Extract<AccountLimitsCommand, { type: 'ArchiveProperty' }>,
  state: AccountLimitsState,
): LimitsEvent[] {
  const resolved = resolveActive(state, cmd.objectType, cmd.facts.hubId);
  if (resolved.kind === 'standard' && resolved.type.defaultProperties.some((p) => p.name === cmd.name)) {
    throw HubSpotError.validation(
      `Property '${cmd.name}' is defined by HubSpot and cannot be archived.`,
      [
        {
          message: `Property '${cmd.name}' is defined by HubSpot and cannot be archived.`,
          in: 'propertyName',
          code: 'NOT_ARCHIVABLE',
        },
      ],
      'PROPERTY_NOT_ARCHIVABLE',
    );
  }
  const slot = state.properties[key(resolved.objectTypeId, cmd.name)];
  if (!slot) throw HubSpotError.notFound(`Property ${cmd.name} does not exist`);
  if (slot.archived) return []; // archiving twice changes nothing
  return [
    {
      type: LimitsEventType.PropertyArchived,
      data: { hubId: cmd.facts.hubId, objectTypeId: resolved.objectTypeId, name: cmd.name, archivedAt: cmd.facts.now },
    },
  ];
}

export const SCHEMA_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
export const MAX_SCHEMA_NAME_LENGTH = 100;

function decideCreateSchema(
  cmd: Extract<AccountLimitsCommand, { type: 'CreateCustomObjectSchema' }>,
  state: AccountLimitsState,
): LimitsEvent[] {
  const { facts, schema } = cmd;
  const errors: ErrorDetail[] = [];
  const bad = (field: string, message: string, code = 'INVALID') => errors.push({ message, in: field, code });

  if (!SCHEMA_NAME.test(schema.name) || schema.name.length > MAX_SCHEMA_NAME_LENGTH) {
    bad(
      'name',
      `Schema name '${schema.name}' is invalid: use 1-${MAX_SCHEMA_NAME_LENGTH} letters, digits and underscores, starting with a letter.`,
    );
  } else if (standardObjectType(schema.name)) {
    bad('name', `Schema name '${schema.name}' is reserved for a HubSpot object type.`);
  }
  const singular = schema.labels.singular?.trim() ?? '';
  const plural = schema.labels.plural?.trim() ?? '';
  if (!singular) bad('labels.singular', 'labels.singular is required', 'REQUIRED');
  if (!plural) bad('labels.plural', 'labels.plural is required', 'REQUIRED');

  const groupName = `${schema.name.toLowerCase()}_information`;
  const definitions: PropertyDefinition[] = [];
  const names = new Set<string>();
  schema.properties.forEach((p, i) => {
    const { definition, errors: propertyErrors } = normalizeProperty(p, groupName, `properties[${i}]`);
    errors.push(...propertyErrors);
    if (isCalculated(definition.fieldType)) {
      bad(
        `properties[${i}].fieldType`,
        'calculated properties are created through /crm/v3/properties/{objectType}, not with the schema',
      );
    }
    if (names.has(definition.name)) bad(`properties[${i}].name`, `property name '${definition.name}' appears twice`);
    names.add(definition.name);
    definitions.push(definition);
  });
  const mustBeDefined = (field: string, list: readonly string[]) =>
    list.forEach((n, i) => {
      if (!names.has(n)) bad(`${field}[${i}]`, `'${n}' is not one of the schema's properties`);
    });
  mustBeDefined('requiredProperties', schema.requiredProperties);
  mustBeDefined('secondaryDisplayProperties', schema.secondaryDisplayProperties ?? []);
  mustBeDefined('searchableProperties', schema.searchableProperties ?? []);
  if (schema.primaryDisplayProperty !== undefined && !names.has(schema.primaryDisplayProperty)) {
    bad('primaryDisplayProperty', `'${schema.primaryDisplayProperty}' is not one of the schema's properties`);
  }

  const targets: string[] = [];
  schema.associatedObjects.forEach((raw, i) => {
    const r = resolveObjectType(raw, facts.hubId, Object.values(state.schemas));
    if (!r) bad(`associatedObjects[${i}]`, `Unable to infer object type from: ${raw}`);
    else if (!targets.includes(r.objectTypeId)) targets.push(r.objectTypeId);
  });
  if (errors.length > 0) throw invalid(errors);

  const clash = Object.values(state.schemas).find((s) => s.name.toLowerCase() === schema.name.toLowerCase());
  if (clash) {
    throw HubSpotError.conflict(
      clash.archived
        ? `An archived object type named '${clash.name}' (${clash.objectTypeId}) exists; purge it with DELETE /crm/v3/schemas/${clash.objectTypeId}?archived=true before reusing its name.`
        : `An object type named '${clash.name}' already exists (${clash.objectTypeId}).`,
      'OBJECT_TYPE_ALREADY_EXISTS',
    );
  }

  const usage = usageOf(state);
  checkCeiling('customObjectTypes', usage.customObjectTypes, 1, state, facts);
  checkCeiling('customProperties', 0, definitions.length, state, facts, ' per object type');

  const seq = state.lastSchemaSeq + 1;
  const objectTypeId = `2-${seq}`;
  let associationId = state.lastAssociationId;
  const associations: AssociationDefinition[] = targets.map((to) => ({
    id: String(++associationId),
    fromObjectTypeId: objectTypeId,
    toObjectTypeId: to,
    name: null,
  }));
  return [
    {
      type: LimitsEventType.CustomObjectSchemaCreated,
      data: {
        hubId: facts.hubId,
        objectTypeId,
        id: String(seq),
        name: schema.name,
        fullyQualifiedName: fullyQualifiedNameOf(facts.hubId, schema.name),
        labels: { singular, plural },
        description: schema.description ?? null,
        primaryDisplayProperty: schema.primaryDisplayProperty ?? null,
        secondaryDisplayProperties: schema.secondaryDisplayProperties ?? [],
        searchableProperties: schema.searchableProperties ?? [],
        requiredProperties: schema.requiredProperties,
        associations,
        createdUserId: facts.userId,
        createdAt: facts.now,
      },
    },
    ...definitions.map((property): LimitsEvent => ({
      type: LimitsEventType.PropertyCreated,
      data: {
        hubId: facts.hubId,
        objectTypeId,
        property,
        calculated: false,
        createdUserId: facts.userId,
        createdAt: facts.now,
      },
    })),
  ];
}

/** DELETE /crm/v3/schemas/{objectType} finds archived schemas too (to purge them). */
export function findSchema(state: AccountLimitsState, raw: string, hubId: number): SchemaSlot | null {
  const k = raw.trim().toLowerCase();
  const all = Object.values(state.schemas);
  return (
    all.find((s) => !s.archived && matches(s, k, hubId)) ?? all.find((s) => s.archived && matches(s, k, hubId)) ?? null
  );
}

const matches = (s: SchemaSlot, k: string, hubId: number) =>
  s.objectTypeId === k || s.name.toLowerCase() === k || fullyQualifiedNameOf(hubId, s.name).toLowerCase() === k;

function decideArchiveSchema(
  cmd: Extract<AccountLimitsCommand, { type: 'ArchiveCustomObjectSchema' }>,
  state: AccountLimitsState,
): LimitsEvent[] {
  const { facts } = cmd;
  const schema = findSchema(state, cmd.objectType, facts.hubId);
  if (!schema) throw HubSpotError.notFound(`Object type ${cmd.objectType} not found`);
  if (cmd.purge) {
    if (!schema.archived) {
      throw HubSpotError.validation(`Object type ${schema.objectTypeId} must be archived before it can be purged.`, [
        { message: 'archive the object type first (DELETE without archived=true)', in: 'archived', code: 'INVALID' },
      ]);
    }
    return [
      {
        type: LimitsEventType.CustomObjectSchemaPurged,
        data: { hubId: facts.hubId, objectTypeId: schema.objectTypeId, purgedAt: facts.now },
      },
    ];
  }
  if (schema.archived) return [];
  return [
    {
      type: LimitsEventType.CustomObjectSchemaArchived,
      data: { hubId: facts.hubId, objectTypeId: schema.objectTypeId, archivedAt: facts.now },
    },
  ];
}

function decideOverride(
  cmd: Extract<AccountLimitsCommand, { type: 'OverrideAccountLimits' }>,
  state: AccountLimitsState,
): LimitsEvent[] {
  const next = mergeOverrides(state.overrides, cmd.overrides);
  if (JSON.stringify(sorted(next)) === JSON.stringify(sorted(state.overrides))) return [];
  return [
    {
      type: LimitsEventType.AccountLimitsOverridden,
      data: { hubId: cmd.facts.hubId, overrides: next, overriddenAt: cmd.facts.now },
    },
  ];
}

const sorted = (o: LimitOverrides) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

function invalid(errors: ErrorDetail[]): HubSpotError {
  return HubSpotError.validation(
    `Invalid input (details will vary based on the error): ${[...new Set(errors.map((e) => e.in))].join(', ')}`,
    errors,
  );
}

export function decideAccountLimits(command: AccountLimitsCommand, state: AccountLimitsState): LimitsEvent[] {
  switch (command.type) {
    case 'CreateProperty':
      return decideCreateProperty(command, state);
    case 'ArchiveProperty':
      return decideArchiveProperty(command, state);
    case 'CreateCustomObjectSchema':
      return decideCreateSchema(command, state);
    case 'ArchiveCustomObjectSchema':
      return decideArchiveSchema(command, state);
    case 'OverrideAccountLimits':
      return decideOverride(command, state);
  }
}

export const accountLimitsDecider: Decider<AccountLimitsState, AccountLimitsCommand, LimitsEvent> = {
  initialState: initialAccountLimitsState,
  evolve: evolveAccountLimits,
  decide: decideAccountLimits,
};
