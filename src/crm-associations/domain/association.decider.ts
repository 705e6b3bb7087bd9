import type { Decider } from '../../platform/commands/decider';
import { associationLimitExceeded } from './association-errors';
import { type AssociationEvent, AssociationEventType, type RecordRef, type StoredType } from './association-events';

/** The types one record pair holds, seen from its first end, keyed `category:typeId`. */
export interface AssociationState {
  types: Record<string, StoredType>;
}

const key = (t: { category: string; typeId: number }) => `${t.category}:${t.typeId}`;

/** How many associations the writing end already holds, and how many it may (per pair of types, per type). */
export interface UsageFacts {
  /** The `from` record's associations to records of the other type, and their ceiling. */
  pair: { usage: number; limit: number };
  /** Per type key (as seen from `from`): its usage by the `from` record and its ceiling. */
  byType: Record<string, { usage: number; limit: number }>;
}

interface Facts {
  now: number;
  appId: number | null;
  userId: number | null;
}

export type AssociationCommand =
  | {
      type: 'AddAssociationTypes';
      hubId: number;
      a: RecordRef;
      b: RecordRef;
      /** Which end writes (whose limits count). */
      fromIsA: boolean;
      types: StoredType[];
      usage: UsageFacts;
      facts: Facts;
    }
  | {
      type: 'RemoveAssociationTypes';
      hubId: number;
      a: RecordRef;
      b: RecordRef;
      /** The types to remove (seen from `a`), or every one the pair holds. */
      types: StoredType[] | 'all';
      facts: Facts;
    };

export function isAssociated(state: AssociationState): boolean {
  return Object.keys(state.types).length > 0;
}

export const associationDecider: Decider<AssociationState, AssociationCommand, AssociationEvent> = {
  initialState: () => ({ types: {} }),
  evolve: (state, event) => {
    const types = { ...state.types };
    for (const t of event.data.types) {
      if (event.type === AssociationEventType.AssociationTypesAdded) types[key(t)] = t;
      else delete types[key(t)];
    }
    return { types };
  },
  decide: (command, state) => {
    const { hubId, a, b, facts } = command;
    const base = { hubId, a, b, at: facts.now, appId: facts.appId, userId: facts.userId };
    if (command.type === 'AddAssociationTypes') {
      const added = command.types.filter(
        (t, i, all) => !state.types[key(t)] && all.findIndex((x) => key(x) === key(t)) === i,
      );
      if (added.length === 0) return [];
      const from = command.fromIsA ? a : b;
      if (!isAssociated(state) && command.usage.pair.usage >= command.usage.pair.limit) {
        throw associationLimitExceeded(
          from.objectTypeId,
          from.id,
          'associated records of this type',
          command.usage.pair.limit,
        );
      }
      for (const t of added) {
        const seen = command.fromIsA ? key(t) : key({ category: t.category, typeId: t.inverseTypeId });
        const limit = command.usage.byType[seen];
        if (limit && limit.usage >= limit.limit) {
          throw associationLimitExceeded(from.objectTypeId, from.id, `associations of type ${seen}`, limit.limit);
        }
      }
      return [{ type: AssociationEventType.AssociationTypesAdded, data: { ...base, types: added } }];
    }
    const removed =
      command.types === 'all'
        ? Object.values(state.types)
        : command.types.filter((t) => state.types[key(t)] !== undefined);
    if (removed.length === 0) return [];
    return [{ type: AssociationEventType.AssociationTypesRemoved, data: { ...base, types: removed } }];
  },
};
