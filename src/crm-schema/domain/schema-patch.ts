import type { ErrorDetail } from '../../platform/errors/hubspot-error';
import type { AccountLimitsState } from './account-limits.state';
import { activeCustomSchema } from './custom-schema-ref';
import { invalidInput } from './limit-errors';
import { LimitsEvent, LimitsEventType, SchemaChanges } from './limits-events';

/** HubSpot's ObjectTypeDefinitionPatch as received (types checked by the HTTP layer; unsupported flags refused there). */
export interface SchemaPatchInput {
  labels?: { singular?: string; plural?: string };
  description?: string;
  clearDescription?: boolean;
  primaryDisplayProperty?: string;
  secondaryDisplayProperties?: string[];
  searchableProperties?: string[];
  requiredProperties?: string[];
}

/**
 * A PATCH of an active custom schema: every property name it refers to must be an active property
 * of that type (including those added through the properties API after the schema), labels cannot
 * be blank, and `description` with `clearDescription: true` contradict each other. Only the fields
 * given are recorded; a PATCH that gives none records nothing.
 */
export function decideUpdateSchema(
  patch: SchemaPatchInput,
  objectType: string,
  state: AccountLimitsState,
  facts: { hubId: number; userId: number | null; now: number },
): LimitsEvent[] {
  const { objectTypeId } = activeCustomSchema(state, objectType, facts.hubId);
  const errors: ErrorDetail[] = [];
  const bad = (field: string, message: string, code = 'INVALID') => errors.push({ message, in: field, code });
  const names = new Set(state.propertiesByType.get(objectTypeId)?.byName.keys());
  const changes: SchemaChanges = {};

  if (patch.labels !== undefined) {
    const singular = patch.labels.singular?.trim() ?? '';
    const plural = patch.labels.plural?.trim() ?? '';
    if (!singular) bad('labels.singular', 'labels.singular is required when labels are changed', 'REQUIRED');
    if (!plural) bad('labels.plural', 'labels.plural is required when labels are changed', 'REQUIRED');
    changes.labels = { singular, plural };
  }
  if (patch.clearDescription === true) {
    if (patch.description !== undefined) {
      bad('clearDescription', 'give either a description or clearDescription: true, not both');
    }
    changes.description = null;
  } else if (patch.description !== undefined) {
    changes.description = patch.description;
  }
  if (patch.primaryDisplayProperty !== undefined) {
    if (!names.has(patch.primaryDisplayProperty)) {
      bad('primaryDisplayProperty', `'${patch.primaryDisplayProperty}' is not a property of ${objectTypeId}`);
    }
    changes.primaryDisplayProperty = patch.primaryDisplayProperty;
  }
  for (const field of ['secondaryDisplayProperties', 'searchableProperties', 'requiredProperties'] as const) {
    const list = patch[field];
    if (list === undefined) continue;
    list.forEach((n, i) => {
      if (!names.has(n)) bad(`${field}[${i}]`, `'${n}' is not a property of ${objectTypeId}`);
    });
    changes[field] = [...new Set(list)];
  }
  if (errors.length > 0) throw invalidInput(errors);
  if (Object.keys(changes).length === 0) return [];
  return [
    {
      type: LimitsEventType.CustomObjectSchemaUpdated,
      data: { hubId: facts.hubId, objectTypeId, changes, updatedUserId: facts.userId, updatedAt: facts.now },
    },
  ];
}
