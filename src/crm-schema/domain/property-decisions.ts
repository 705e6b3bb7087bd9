import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AccountLimitsState, isNameTaken, propertyOf, usageOf } from './account-limits.state';
import { checkCeiling, CommandFacts, resolveActive } from './ceiling-check';
import { invalidInput } from './limit-errors';
import { LimitsEvent, LimitsEventType, PropertyCreated, type PropertyDefinition } from './limits-events';
import { isHubSpotDefinedProperty, type ResolvedObjectType } from './object-types';
import { defaultGroupsOf, GROUP_NAME, MAX_GROUP_NAME_LENGTH, PropertyGroupDefinition } from './property-groups';
import {
  calculationTypeErrors,
  checkUniqueValueCeiling,
  formulaErrors,
  propertyTypesOf,
  uniqueValueUsage,
} from './property-checks';
import { isCalculated, normalizeProperty, PropertyInput } from './property-rules';

/** HubSpot's PropertyUpdate: every field optional; absent ones keep their value. */
export interface PropertyPatch {
  label?: string;
  description?: string;
  groupName?: string;
  options?: PropertyInput['options'];
  displayOrder?: number;
  hidden?: boolean;
  formField?: boolean;
  type?: string;
  fieldType?: string;
  calculationFormula?: string;
  numberDisplayHint?: string;
  textDisplayHint?: string;
  showCurrencySymbol?: boolean;
  currencyPropertyName?: string;
}

export interface PropertyGroupPatch {
  label?: string;
  displayOrder?: number;
}

/** The property and property-group commands (beside the create/archive ones of the account decider). */
export type PropertyCommand =
  | { type: 'UpdateProperty'; facts: CommandFacts; objectType: string; name: string; patch: PropertyPatch }
  | { type: 'BatchCreateProperties'; facts: CommandFacts; objectType: string; inputs: PropertyInput[] }
  | { type: 'BatchArchiveProperties'; facts: CommandFacts; objectType: string; names: string[] }
  | { type: 'CreatePropertyGroup'; facts: CommandFacts; objectType: string; group: PropertyGroupInput }
  | { type: 'UpdatePropertyGroup'; facts: CommandFacts; objectType: string; name: string; patch: PropertyGroupPatch }
  | { type: 'ArchivePropertyGroup'; facts: CommandFacts; objectType: string; name: string };

export interface PropertyGroupInput {
  name: string;
  label: string;
  displayOrder?: number;
}

type CommandOf<T extends PropertyCommand['type']> = Extract<PropertyCommand, { type: T }>;

/** What the inputs of one batch decided before the current one add to the state's counts. */
export interface BatchSoFar {
  names: Set<string>;
  customProperties: number;
  calculatedProperties: number;
  uniqueValueProperties: number;
}

export const emptyBatch = (): BatchSoFar => ({
  names: new Set(),
  customProperties: 0,
  calculatedProperties: 0,
  uniqueValueProperties: 0,
});

/* ---------- groups ---------- */

function activeGroup(
  state: AccountLimitsState,
  resolved: ResolvedObjectType,
  name: string,
): { group: PropertyGroupDefinition; hubspotDefined: boolean } | undefined {
  const builtIn = defaultGroupsOf(resolved).find((g) => g.name === name);
  if (builtIn) return { group: builtIn, hubspotDefined: true };
  const own = state.propertiesByType.get(resolved.objectTypeId)?.groups.get(name);
  return own ? { group: own, hubspotDefined: false } : undefined;
}

function unknownGroup(name: string, field = 'groupName'): HubSpotError {
  const message = `Property group ${name} does not exist.`;
  return HubSpotError.validation(message, [{ message, in: field, code: 'INVALID' }], 'PROPERTY_GROUP_NOT_FOUND');
}

/* ---------- properties ---------- */

/**
 * One new property on `resolved`: the rules of POST /properties, with the inputs of the same
 * batch decided before it counted as if they existed (`batch` is updated when this one passes).
 */
export function decidePropertyCreation(
  state: AccountLimitsState,
  resolved: ResolvedObjectType,
  input: PropertyInput,
  facts: CommandFacts,
  batch: BatchSoFar,
  path = '',
): PropertyCreated {
  const defaultGroup = defaultGroupsOf(resolved)[0]?.name ?? '';
  const { definition, errors } = normalizeProperty(input, defaultGroup, path);
  if (errors.length > 0) throw invalidInput(errors);
  const formula = formulaErrors(
    definition,
    propertyTypesOf(state, resolved),
    path ? `${path}.calculationFormula` : 'calculationFormula',
  );
  if (formula.length > 0) throw invalidInput(formula);
  if (!activeGroup(state, resolved, definition.groupName))
    throw unknownGroup(definition.groupName, path ? `${path}.groupName` : 'groupName');
  if (isNameTaken(state, resolved, definition.name) || batch.names.has(definition.name)) {
    throw HubSpotError.conflict(`Property named '${definition.name}' already exists.`, 'PROPERTY_ALREADY_EXISTS');
  }
  const usage = usageOf(state);
  const calculated = isCalculated(definition.fieldType);
  if (calculated) {
    checkCeiling('calculatedProperties', usage.calculatedProperties + batch.calculatedProperties, 1, state, facts);
  }
  checkCeiling(
    'customProperties',
    (usage.customPropertiesByType[resolved.objectTypeId] ?? 0) + batch.customProperties,
    1,
    state,
    facts,
    ` on object type ${resolved.objectTypeId}`,
  );
  if (definition.hasUniqueValue) {
    const usage = uniqueValueUsage(state, resolved.objectTypeId) + batch.uniqueValueProperties;
    checkUniqueValueCeiling(usage, 1, resolved.objectTypeId, facts.tier);
  }
  batch.names.add(definition.name);
  batch.customProperties++;
  if (calculated) batch.calculatedProperties++;
  if (definition.hasUniqueValue) batch.uniqueValueProperties++;
  return {
    type: LimitsEventType.PropertyCreated,
    data: {
      hubId: facts.hubId,
      objectTypeId: resolved.objectTypeId,
      property: definition,
      calculated,
      createdUserId: facts.userId,
      createdAt: facts.now,
    },
  };
}

/** An input of a batch rejected, by its index in the batch, with HubSpot's error for it. */
export interface BatchRefusal {
  index: number;
  error: HubSpotError;
}

export interface BatchCreatePlan {
  events: PropertyCreated[];
  rejected: BatchRefusal[];
}

/**
 * POST /batch/create: each input decided on its own, in order, counting the ones before it that
 * passed; the ones that pass are appended together (one command, one append), the rest are
 * reported. An unknown object type refuses the whole batch.
 */
export function planBatchCreate(cmd: CommandOf<'BatchCreateProperties'>, state: AccountLimitsState): BatchCreatePlan {
  const resolved = resolveActive(state, cmd.objectType, cmd.facts.hubId);
  const batch = emptyBatch();
  const plan: BatchCreatePlan = { events: [], rejected: [] };
  cmd.inputs.forEach((input, index) => {
    try {
      plan.events.push(decidePropertyCreation(state, resolved, input, cmd.facts, batch, `inputs[${index}]`));
    } catch (error) {
      if (!(error instanceof HubSpotError)) throw error;
      plan.rejected.push({ index, error });
    }
  });
  return plan;
}

function readOnly(name: string, what: string): HubSpotError {
  const message = `${what} '${name}' is defined by HubSpot and cannot be changed.`;
  return HubSpotError.validation(message, [{ message, in: 'name', code: 'READ_ONLY' }], 'READ_ONLY_DEFINITION');
}

function decideUpdateProperty(cmd: CommandOf<'UpdateProperty'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts, patch } = cmd;
  const resolved = resolveActive(state, cmd.objectType, facts.hubId);
  if (isHubSpotDefinedProperty(resolved, cmd.name)) {
    throw readOnly(cmd.name, 'Property');
  }
  const slot = propertyOf(state, resolved.objectTypeId, cmd.name);
  if (!slot) throw HubSpotError.notFound(`Property ${cmd.name} does not exist`);
  const old = slot.definition;
  const frozen = calculationTypeErrors(old, patch);
  if (frozen.length > 0) throw invalidInput(frozen);
  const type = patch.type ?? old.type;
  const fieldType = patch.fieldType ?? old.fieldType;
  const calculatedAfter = isCalculated(fieldType);
  const keepsOptions = type === 'enumeration' || (type === 'bool' && old.type === 'bool');
  const merged: PropertyInput = {
    name: old.name,
    label: patch.label ?? old.label,
    type,
    fieldType,
    groupName: patch.groupName ?? old.groupName,
    description: patch.description ?? old.description,
    options: patch.options ?? (keepsOptions ? old.options : []),
    displayOrder: patch.displayOrder ?? old.displayOrder,
    hasUniqueValue: old.hasUniqueValue,
    hidden: patch.hidden ?? old.hidden,
    formField: patch.formField ?? old.formField,
    externalOptions: old.externalOptions,
    ...displayFields(old, patch, type),
    ...(old.referencedObjectType !== null ? { referencedObjectType: old.referencedObjectType } : {}),
    // Turning a calculated property into a plain one drops its formula; the reverse needs one.
    ...(calculatedAfter
      ? { calculationFormula: patch.calculationFormula ?? old.calculationFormula ?? undefined }
      : patch.calculationFormula !== undefined
        ? { calculationFormula: patch.calculationFormula }
        : {}),
  };
  const { definition, errors } = normalizeProperty(merged, old.groupName);
  if (errors.length > 0) throw invalidInput(errors);
  // A new formula is checked against today's properties; an unchanged one keeps standing.
  const formula =
    patch.calculationFormula !== undefined
      ? formulaErrors(definition, propertyTypesOf(state, resolved), 'calculationFormula')
      : [];
  if (formula.length > 0) throw invalidInput(formula);
  // Only a group the patch names is checked: a property keeps the group it was created in.
  if (patch.groupName !== undefined && !activeGroup(state, resolved, definition.groupName)) {
    throw unknownGroup(definition.groupName);
  }
  if (JSON.stringify(definition) === JSON.stringify(old)) return [];
  if (calculatedAfter && !slot.calculated) {
    checkCeiling('calculatedProperties', usageOf(state).calculatedProperties, 1, state, facts);
  }
  return [
    {
      type: LimitsEventType.PropertyUpdated,
      data: {
        hubId: facts.hubId,
        objectTypeId: resolved.objectTypeId,
        property: definition,
        calculated: calculatedAfter,
        updatedUserId: facts.userId,
        updatedAt: facts.now,
      },
    },
  ];
}

/**
 * The display hints after a patch (a given one replaces the old; an old one that no longer fits a
 * changed type is dropped) and the unchanged sensitivity.
 */
function displayFields(old: PropertyDefinition, patch: PropertyPatch, type: string): Partial<PropertyInput> {
  const out: Partial<PropertyInput> = {};
  const keep = type === old.type;
  for (const k of ['numberDisplayHint', 'textDisplayHint', 'currencyPropertyName'] as const) {
    const v = patch[k] ?? (keep ? old[k] : undefined);
    if (v !== undefined) out[k] = v;
  }
  const symbol = patch.showCurrencySymbol ?? (keep ? old.showCurrencySymbol : undefined);
  if (symbol !== undefined) out.showCurrencySymbol = symbol;
  if (old.dataSensitivity !== undefined) out.dataSensitivity = old.dataSensitivity;
  return out;
}

/** 204 whatever each property's state (HubSpot's rule): only the active ones get an event. */
function decideBatchArchive(cmd: CommandOf<'BatchArchiveProperties'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts } = cmd;
  const resolved = resolveActive(state, cmd.objectType, facts.hubId);
  const names = [...new Set(cmd.names)];
  const builtIn = names.filter((n) => isHubSpotDefinedProperty(resolved, n));
  if (builtIn.length > 0) {
    const message = `Properties defined by HubSpot cannot be archived: ${builtIn.join(', ')}`;
    throw HubSpotError.validation(
      message,
      builtIn.map((n) => ({ message: `Property '${n}' is defined by HubSpot`, in: 'inputs', code: 'NOT_ARCHIVABLE' })),
      'PROPERTY_NOT_ARCHIVABLE',
    );
  }
  return names
    .filter((name) => propertyOf(state, resolved.objectTypeId, name))
    .map((name) => ({
      type: LimitsEventType.PropertyArchived,
      data: { hubId: facts.hubId, objectTypeId: resolved.objectTypeId, name, archivedAt: facts.now },
    }));
}

/* ---------- property groups ---------- */

function decideCreateGroup(cmd: CommandOf<'CreatePropertyGroup'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts, group } = cmd;
  const resolved = resolveActive(state, cmd.objectType, facts.hubId);
  const errors = [];
  if (!GROUP_NAME.test(group.name) || group.name.length > MAX_GROUP_NAME_LENGTH) {
    errors.push({
      message: `Property group name '${group.name}' is invalid: use 1-${MAX_GROUP_NAME_LENGTH} lowercase letters, digits and underscores.`,
      in: 'name',
      code: 'INVALID',
    });
  }
  if (group.label.trim() === '') errors.push({ message: 'label must not be blank', in: 'label', code: 'REQUIRED' });
  if (errors.length > 0) throw invalidInput(errors);
  if (activeGroup(state, resolved, group.name)) {
    throw HubSpotError.conflict(
      `Property group named '${group.name}' already exists.`,
      'PROPERTY_GROUP_ALREADY_EXISTS',
    );
  }
  return [
    {
      type: LimitsEventType.PropertyGroupCreated,
      data: {
        hubId: facts.hubId,
        objectTypeId: resolved.objectTypeId,
        group: { name: group.name, label: group.label, displayOrder: group.displayOrder ?? -1 },
        createdAt: facts.now,
      },
    },
  ];
}

function ownGroup(state: AccountLimitsState, resolved: ResolvedObjectType, name: string): PropertyGroupDefinition {
  const found = activeGroup(state, resolved, name);
  if (!found) throw HubSpotError.notFound(`Property group ${name} does not exist`);
  if (found.hubspotDefined) throw readOnly(name, 'Property group');
  return found.group;
}

function decideUpdateGroup(cmd: CommandOf<'UpdatePropertyGroup'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts, patch } = cmd;
  const resolved = resolveActive(state, cmd.objectType, facts.hubId);
  const old = ownGroup(state, resolved, cmd.name);
  if (patch.label !== undefined && patch.label.trim() === '') {
    throw invalidInput([{ message: 'label must not be blank', in: 'label', code: 'REQUIRED' }]);
  }
  const group = {
    name: old.name,
    label: patch.label ?? old.label,
    displayOrder: patch.displayOrder ?? old.displayOrder,
  };
  if (group.label === old.label && group.displayOrder === old.displayOrder) return [];
  return [
    {
      type: LimitsEventType.PropertyGroupUpdated,
      data: { hubId: facts.hubId, objectTypeId: resolved.objectTypeId, group, updatedAt: facts.now },
    },
  ];
}

function decideArchiveGroup(cmd: CommandOf<'ArchivePropertyGroup'>, state: AccountLimitsState): LimitsEvent[] {
  const { facts } = cmd;
  const resolved = resolveActive(state, cmd.objectType, facts.hubId);
  ownGroup(state, resolved, cmd.name);
  const holding = state.propertiesByType.get(resolved.objectTypeId)?.perGroup.get(cmd.name) ?? 0;
  if (holding > 0) {
    const message = `Property group ${cmd.name} still holds ${holding} ${holding === 1 ? 'property' : 'properties'}; move or archive them first.`;
    throw HubSpotError.validation(
      message,
      [{ message, in: 'groupName', code: 'NOT_EMPTY' }],
      'PROPERTY_GROUP_NOT_EMPTY',
    );
  }
  return [
    {
      type: LimitsEventType.PropertyGroupArchived,
      data: { hubId: facts.hubId, objectTypeId: resolved.objectTypeId, name: cmd.name, archivedAt: facts.now },
    },
  ];
}

export function decidePropertyCommand(command: PropertyCommand, state: AccountLimitsState): LimitsEvent[] {
  switch (command.type) {
    case 'UpdateProperty':
      return decideUpdateProperty(command, state);
    case 'BatchCreateProperties':
      return planBatchCreate(command, state).events;
    case 'BatchArchiveProperties':
      return decideBatchArchive(command, state);
    case 'CreatePropertyGroup':
      return decideCreateGroup(command, state);
    case 'UpdatePropertyGroup':
      return decideUpdateGroup(command, state);
    case 'ArchivePropertyGroup':
      return decideArchiveGroup(command, state);
  }
}
