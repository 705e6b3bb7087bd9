import { ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import type { Tier } from '../../platform/tiers';
import type { AccountLimitsState } from './account-limits.state';
import { checkFormula, formulaTypeOfProperty } from './calculation-formula';
import type { PropertyDefinition } from './limits-events';
import { hubSpotDefinedPropertiesOf, type ResolvedObjectType } from './object-types';
import { isCalculated } from './property-rules';

/** The property types a formula may name on one object: HubSpot's own and the account's active ones. */
export function propertyTypesOf(
  state: AccountLimitsState,
  resolved: ResolvedObjectType,
): (name: string) => string | undefined {
  const own = state.propertiesByType.get(resolved.objectTypeId)?.byName;
  const builtIn = hubSpotDefinedPropertiesOf(resolved);
  return (name) => own?.get(name)?.definition.type ?? builtIn.find((p) => p.name === name)?.type;
}

/**
 * A calculated property's formula, parsed and type-checked as HubSpot's formula language: every
 * property it names exists on the object with a type that fits how it is read, it does not name
 * itself, and its result fits the property's own type. [] when fine (or not calculated).
 */
export function formulaErrors(
  definition: PropertyDefinition,
  lookup: (name: string) => string | undefined,
  field: string,
): ErrorDetail[] {
  if (!isCalculated(definition.fieldType) || definition.calculationFormula === null) return [];
  const bad = (message: string): ErrorDetail[] => [{ message, in: field, code: 'INVALID_FORMULA' }];
  const self = definition.name;
  const result = checkFormula(definition.calculationFormula, (name) => (name === self ? undefined : lookup(name)));
  if (!result.ok) {
    const message =
      result.message === `property '${self}' does not exist on this object` && lookup(self) !== undefined
        ? `property '${self}' cannot refer to itself`
        : result.message;
    return bad(`calculationFormula is not a valid formula: ${message} (at character ${result.position + 1})`);
  }
  const expected = formulaTypeOfProperty(definition.type);
  if (expected !== undefined && result.type !== expected) {
    return bad(
      `calculationFormula yields a ${result.type}, but the property's type ${definition.type} needs a ${expected}`,
    );
  }
  return [];
}

/** HubSpot's ceiling: at most 10 unique-value properties (`hasUniqueValue: true`) per object type. */
export const UNIQUE_VALUE_PROPERTIES_LIMIT = 10;
export const UNIQUE_VALUE_SUBCATEGORY = 'LIMITS.UNIQUE_VALUE_PROPERTIES_LIMIT_EXCEEDED';

/** Active unique-value properties of one object type. */
export function uniqueValueUsage(state: AccountLimitsState, objectTypeId: string): number {
  let n = 0;
  for (const slot of state.propertiesByType.get(objectTypeId)?.byName.values() ?? []) {
    if (slot.definition.hasUniqueValue) n++;
  }
  return n;
}

/** 400 VALIDATION_ERROR in the shape of the other ceilings (subCategory, context with limit and usage). */
export function checkUniqueValueCeiling(usage: number, adding: number, objectTypeId: string, tier: Tier): void {
  const limit = UNIQUE_VALUE_PROPERTIES_LIMIT;
  if (usage + adding <= limit) return;
  const message =
    `You have reached your limit of unique value properties on object type ${objectTypeId}: ${usage} of ${limit} ` +
    `in use (HubSpot's limit for every tier). Cannot create ${adding === 1 ? 'another property' : `${adding} more properties`} with hasUniqueValue: true.`;
  const context = { limit: [String(limit)], usage: [String(usage)], tier: [tier] };
  throw new HubSpotError(400, 'VALIDATION_ERROR', message, {
    subCategory: UNIQUE_VALUE_SUBCATEGORY,
    context,
    errors: [{ message, in: 'hasUniqueValue', code: 'LIMIT_EXCEEDED', subCategory: UNIQUE_VALUE_SUBCATEGORY, context }],
  });
}

/**
 * HubSpot does not let a calculated property's type or field type change once created (its
 * knowledge base: "the field type cannot be edited"). Plain properties keep the rules they had.
 */
export function calculationTypeErrors(
  old: PropertyDefinition,
  patch: { type?: string; fieldType?: string },
): ErrorDetail[] {
  if (!isCalculated(old.fieldType)) return [];
  return (['type', 'fieldType'] as const)
    .filter((field) => patch[field] !== undefined && patch[field] !== old[field])
    .map((field) => ({
      message: `${field} of calculated property '${old.name}' cannot be changed once it is created (it is ${old[field]})`,
      in: field,
      code: 'READ_ONLY',
    }));
}
