import { activeAssociations, associationLabelUsage } from './association-definitions';
import type { AccountLimitsState } from './account-limits.state';
import { checkCeiling, type CommandFacts, resolveActive } from './ceiling-check';
import { associationLabelNotFound, associationNameTaken, invalidInput } from './limit-errors';
import type { AssociationDefinition, LimitsEvent } from './limits-events';
import { LimitsEventType } from './limits-events';

/**
 * The account's association labels of the associations v4 API (`definitionsApi`): USER_DEFINED types
 * between any two active object types (standard or custom), kept with the schemas' association
 * definitions (one id sequence, one name space, one label ceiling per pair). A label holds two type
 * ids, one per direction, as HubSpot's do; a paired label names each direction (`inverseLabel`).
 */
export interface AssociationLabelInput {
  fromObjectType: string;
  toObjectType: string;
  name: string;
  label: string;
  inverseLabel?: string;
}

export interface AssociationLabelChange {
  fromObjectType: string;
  toObjectType: string;
  associationTypeId: number;
  label: string;
  inverseLabel?: string;
}

function pairOf(state: AccountLimitsState, from: string, to: string, hubId: number): [string, string] {
  return [resolveActive(state, from, hubId).objectTypeId, resolveActive(state, to, hubId).objectTypeId];
}

export function decideCreateAssociationLabel(
  input: AssociationLabelInput,
  state: AccountLimitsState,
  facts: CommandFacts,
): LimitsEvent[] {
  const [from, to] = pairOf(state, input.fromObjectType, input.toObjectType, facts.hubId);
  const name = input.name.trim();
  const clash = activeAssociations(state).find((a) => a.name?.toLowerCase() === name.toLowerCase());
  if (clash) throw associationNameTaken(clash.name!, clash.id, clash.fromObjectTypeId, clash.toObjectTypeId);
  checkCeiling(
    'associationLabels',
    associationLabelUsage(state, from, to),
    1,
    state,
    facts,
    ` between ${from} and ${to}`,
  );
  const label = input.label.trim();
  const association: AssociationDefinition = {
    id: String(state.lastAssociationId + 1),
    fromObjectTypeId: from,
    toObjectTypeId: to,
    name,
    createdAt: facts.now,
    label,
    inverseId: String(state.lastAssociationId + 2),
    inverseLabel: input.inverseLabel?.trim() || label,
  };
  return [
    {
      type: LimitsEventType.AssociationDefinitionCreated,
      data: { hubId: facts.hubId, association, createdAt: facts.now },
    },
  ];
}

/** The label of this pair whose type id (either direction's) is `typeId`, and which direction it is. */
function labelOf(
  state: AccountLimitsState,
  from: string,
  to: string,
  typeId: number,
): { label: AssociationDefinition; inverse: boolean } | undefined {
  for (const a of activeAssociations(state)) {
    if (a.label === undefined) continue;
    if (a.fromObjectTypeId === from && a.toObjectTypeId === to && a.id === String(typeId))
      return { label: a, inverse: false };
    if (a.fromObjectTypeId === to && a.toObjectTypeId === from && a.inverseId === String(typeId))
      return { label: a, inverse: true };
  }
  return undefined;
}

export function decideUpdateAssociationLabel(
  change: AssociationLabelChange,
  state: AccountLimitsState,
  facts: CommandFacts,
): LimitsEvent[] {
  const [from, to] = pairOf(state, change.fromObjectType, change.toObjectType, facts.hubId);
  const found = labelOf(state, from, to, change.associationTypeId);
  if (!found) throw associationLabelNotFound(change.associationTypeId, from, to);
  const label = change.label.trim();
  if (label === '') throw invalidInput([{ message: 'label must not be blank', in: 'label', code: 'REQUIRED' }]);
  const other = change.inverseLabel?.trim() || undefined;
  // Told from the inverse's side, the labels swap places.
  const [forward, backward] = found.inverse
    ? [other ?? found.label.label!, label]
    : [label, other ?? found.label.inverseLabel!];
  if (forward === found.label.label && backward === found.label.inverseLabel) return [];
  return [
    {
      type: LimitsEventType.AssociationDefinitionUpdated,
      data: {
        hubId: facts.hubId,
        associationId: found.label.id,
        label: forward,
        inverseLabel: backward,
        updatedAt: facts.now,
      },
    },
  ];
}

export function decideArchiveAssociationLabel(
  ref: { fromObjectType: string; toObjectType: string; associationTypeId: number },
  state: AccountLimitsState,
  facts: CommandFacts,
): LimitsEvent[] {
  const [from, to] = pairOf(state, ref.fromObjectType, ref.toObjectType, facts.hubId);
  const found = labelOf(state, from, to, ref.associationTypeId);
  if (!found) throw associationLabelNotFound(ref.associationTypeId, from, to);
  return [
    {
      type: LimitsEventType.AssociationDefinitionDeleted,
      data: {
        hubId: facts.hubId,
        fromObjectTypeId: found.label.fromObjectTypeId,
        associationId: found.label.id,
        deletedAt: facts.now,
      },
    },
  ];
}
