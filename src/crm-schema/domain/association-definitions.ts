import { HubSpotError } from '../../platform/errors/hubspot-error';
import { type AccountLimitsState, isActiveType } from './account-limits.state';
import { checkCeiling, type CommandFacts } from './ceiling-check';
import { activeCustomSchema } from './custom-schema-ref';
import { unknownObjectType } from './limit-errors';
import type { AssociationDefinition, LimitsEvent } from './limits-events';
import { LimitsEventType } from './limits-events';
import { resolveObjectType } from './object-types';

/** HubSpot's AssociationDefinitionEgg as received (types checked by the HTTP layer). */
export interface AssociationInput {
  fromObjectTypeId: string;
  toObjectTypeId: string;
  name?: string;
}

/** A definition counts while both of its object types are active (standard, or a custom type not archived). */
export function activeAssociations(state: AccountLimitsState): AssociationDefinition[] {
  return Object.values(state.associations).filter(
    (a) => isActiveType(state, a.fromObjectTypeId) && isActiveType(state, a.toObjectTypeId),
  );
}

/** Association labels of one pair: its named definitions (the unnamed one is HubSpot's default, not a label). */
export function associationLabelUsage(state: AccountLimitsState, from: string, to: string): number {
  return activeAssociations(state).filter((a) => a.fromObjectTypeId === from && a.toObjectTypeId === to && a.name)
    .length;
}

const invalid = (field: string, message: string, code = 'INVALID') =>
  HubSpotError.validation(message, [{ message, in: field, code }]);

/**
 * POST /crm/v3/schemas/{objectType}/associations: from the path's active custom type to a standard
 * type or another active custom type of the same account. A named definition is an association
 * label and counts against the label ceiling of its (from, to) pair; names are unique in the
 * account, and a pair has at most one unnamed definition.
 */
export function decideCreateAssociation(
  input: AssociationInput,
  objectType: string,
  state: AccountLimitsState,
  facts: CommandFacts,
): LimitsEvent[] {
  const { objectTypeId: from } = activeCustomSchema(state, objectType, facts.hubId);
  const schemas = Object.values(state.schemas);
  const declaredFrom = resolveObjectType(input.fromObjectTypeId, facts.hubId, schemas);
  if (declaredFrom?.objectTypeId !== from) {
    throw invalid(
      'fromObjectTypeId',
      `fromObjectTypeId '${input.fromObjectTypeId}' must name ${from}, the object type of the path.`,
    );
  }
  const target = resolveObjectType(input.toObjectTypeId, facts.hubId, schemas);
  if (!target) {
    throw unknownObjectType(input.toObjectTypeId, 'toObjectTypeId');
  }
  const to = target.objectTypeId;
  if (to === from) {
    throw invalid(
      'toObjectTypeId',
      'Associations of an object type with itself are not supported by this service.',
      'UNSUPPORTED',
    );
  }
  const name = input.name?.trim() || null;
  const active = activeAssociations(state);
  if (name !== null) {
    const clash = active.find((a) => a.name?.toLowerCase() === name.toLowerCase());
    if (clash) {
      throw HubSpotError.conflict(
        `An association named '${clash.name}' already exists (${clash.id}, ${clash.fromObjectTypeId} to ${clash.toObjectTypeId}).`,
        'ASSOCIATION_ALREADY_EXISTS',
      );
    }
    checkCeiling(
      'associationLabels',
      associationLabelUsage(state, from, to),
      1,
      state,
      facts,
      ` between ${from} and ${to}`,
    );
  } else {
    const unnamed = active.find((a) => a.fromObjectTypeId === from && a.toObjectTypeId === to && !a.name);
    if (unnamed) {
      throw HubSpotError.conflict(
        `${from} is already associated with ${to} (${unnamed.id}); give a name to add an association label.`,
        'ASSOCIATION_ALREADY_EXISTS',
      );
    }
  }
  const association: AssociationDefinition = {
    id: String(state.lastAssociationId + 1),
    fromObjectTypeId: from,
    toObjectTypeId: to,
    name,
    createdAt: facts.now,
  };
  return [
    {
      type: LimitsEventType.AssociationDefinitionCreated,
      data: { hubId: facts.hubId, association, createdAt: facts.now },
    },
  ];
}

/** DELETE /crm/v3/schemas/{objectType}/associations/{associationIdentifier}: by id (or name) of one of the type's definitions. */
export function decideDeleteAssociation(
  identifier: string,
  objectType: string,
  state: AccountLimitsState,
  facts: { hubId: number; now: number },
): LimitsEvent[] {
  const { objectTypeId: from } = activeCustomSchema(state, objectType, facts.hubId);
  const key = identifier.trim().toLowerCase();
  const association = Object.values(state.associations).find(
    (a) => a.fromObjectTypeId === from && (a.id === key || a.name?.toLowerCase() === key),
  );
  if (!association) throw HubSpotError.notFound(`Association ${identifier} of object type ${from} not found`);
  return [
    {
      type: LimitsEventType.AssociationDefinitionDeleted,
      data: { hubId: facts.hubId, fromObjectTypeId: from, associationId: association.id, deletedAt: facts.now },
    },
  ];
}
