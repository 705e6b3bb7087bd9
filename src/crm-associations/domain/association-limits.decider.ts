import type { Decider } from '../../platform/commands/decider';
import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';
import { invalidAssociationInput } from './association-errors';
import { RECORD_ASSOCIATION_LIMIT } from './association-types';

/**
 * The account's association limits (HubSpot's definition configurations: `maxToObjectIds` per
 * association type of a pair, lower than HubSpot's own): one stream per account,
 * `crm.association-limits-{hubId}`. A limit on a pair's unlabeled type is the per-record limit of
 * the pair; on a label, the limit of that label.
 */
export const AssociationLimitEventType = {
  AssociationLimitSet: 'crm.AssociationLimitSet',
  AssociationLimitRemoved: 'crm.AssociationLimitRemoved',
} as const;

export const associationLimitsStream = (hubId: number) => `crm.association-limits-${hubId}`;

export interface LimitKey {
  fromObjectTypeId: string;
  toObjectTypeId: string;
  category: string;
  typeId: number;
}

export interface AssociationLimitSet {
  type: typeof AssociationLimitEventType.AssociationLimitSet;
  data: LimitKey & { hubId: number; maxToObjectIds: number; at: number };
}

export interface AssociationLimitRemoved {
  type: typeof AssociationLimitEventType.AssociationLimitRemoved;
  data: LimitKey & { hubId: number; at: number };
}

export type AssociationLimitEvent = AssociationLimitSet | AssociationLimitRemoved;

export const limitKey = (k: LimitKey) => `${k.fromObjectTypeId}>${k.toObjectTypeId}:${k.category}:${k.typeId}`;

export interface AssociationLimitsState {
  limits: Record<string, number>;
}

export type AssociationLimitsCommand = {
  hubId: number;
  key: LimitKey;
  now: number;
} & (
  | { type: 'CreateAssociationLimit'; maxToObjectIds: number }
  | { type: 'UpdateAssociationLimit'; maxToObjectIds: number }
  | { type: 'RemoveAssociationLimit' }
);

const refuse = (message: string, code: string) =>
  invalidAssociationInput(message, [{ message, in: 'maxToObjectIds', code }]);

export const associationLimitsDecider: Decider<
  AssociationLimitsState,
  AssociationLimitsCommand,
  AssociationLimitEvent
> = {
  initialState: () => ({ limits: {} }),
  evolve: (state, event) => {
    const limits = { ...state.limits };
    if (event.type === AssociationLimitEventType.AssociationLimitSet)
      limits[limitKey(event.data)] = event.data.maxToObjectIds;
    else delete limits[limitKey(event.data)];
    return { limits };
  },
  decide: (command, state) => {
    const current = state.limits[limitKey(command.key)];
    const base = { ...command.key, hubId: command.hubId, at: command.now };
    if (command.type === 'RemoveAssociationLimit') {
      return current === undefined ? [] : [{ type: AssociationLimitEventType.AssociationLimitRemoved, data: base }];
    }
    const max = command.maxToObjectIds;
    if (!Number.isInteger(max) || max < 1 || max > RECORD_ASSOCIATION_LIMIT) {
      throw refuse(`maxToObjectIds must be from 1 to ${RECORD_ASSOCIATION_LIMIT}.`, 'INVALID_LIMIT');
    }
    if (command.type === 'CreateAssociationLimit' && current !== undefined) {
      throw refuse(
        `A limit is already configured for association type ${command.key.typeId}; update it instead.`,
        'ALREADY_CONFIGURED',
      );
    }
    if (command.type === 'UpdateAssociationLimit' && current === undefined) {
      throw refuse(
        `No limit is configured for association type ${command.key.typeId}; create it first.`,
        'NOT_CONFIGURED',
      );
    }
    if (current === max) return [];
    return [{ type: AssociationLimitEventType.AssociationLimitSet, data: { ...base, maxToObjectIds: max } }];
  },
};

const asIs: EventDecoder | null = null;
export const associationLimitEvents: EventDefinitions = {
  [AssociationLimitEventType.AssociationLimitSet]: asIs,
  [AssociationLimitEventType.AssociationLimitRemoved]: asIs,
};
