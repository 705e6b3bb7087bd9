import type { Decider } from '../../platform/commands/decider';
import { CardsEventType, type AppCardTargetEvent } from './card-events';

/**
 * Who migrates into one app card, folded from `cards.app-card-target-{appId}-{appCardId}`:
 * the legacy cards that claimed it, in claim order, with whether they allowed duplicates.
 */
export interface AppCardTargetState {
  claims: Array<{ legacyCardId: string; allowDuplicateAppCardIds: boolean }>;
}

export type ClaimAppCardTarget = {
  type: 'ClaimAppCardTarget';
  appId: number;
  appCardId: string;
  legacyCardId: string;
  allowDuplicateAppCardIds: boolean;
  now: number;
};
/** Undoes a claim whose migration could not start (the card was deleted, or already migrates elsewhere). */
export type ReleaseAppCardTarget = {
  type: 'ReleaseAppCardTarget';
  appId: number;
  appCardId: string;
  legacyCardId: string;
  now: number;
};
export type AppCardTargetCommand = ClaimAppCardTarget | ReleaseAppCardTarget;

/** Another legacy card claimed the app card first and this claim does not allow duplicates. */
export class AppCardTargetTaken extends Error {
  constructor(
    readonly appCardId: string,
    readonly holderLegacyCardId: string,
  ) {
    super(`app card ${appCardId} is the target of legacy card ${holderLegacyCardId}`);
    this.name = 'AppCardTargetTaken';
  }
}

export const initialAppCardTargetState = (): AppCardTargetState => ({ claims: [] });

export function evolveAppCardTarget(state: AppCardTargetState, event: AppCardTargetEvent): AppCardTargetState {
  switch (event.type) {
    case CardsEventType.AppCardTargetClaimed:
      return {
        claims: [
          ...state.claims,
          { legacyCardId: event.data.legacyCardId, allowDuplicateAppCardIds: event.data.allowDuplicateAppCardIds },
        ],
      };
    case CardsEventType.AppCardTargetReleased:
      return { claims: state.claims.filter((c) => c.legacyCardId !== event.data.legacyCardId) };
    default:
      return state;
  }
}

export function decideAppCardTarget(command: AppCardTargetCommand, state: AppCardTargetState): AppCardTargetEvent[] {
  const mine = state.claims.some((c) => c.legacyCardId === command.legacyCardId);
  switch (command.type) {
    case 'ClaimAppCardTarget': {
      if (mine) return [];
      const other = state.claims[0];
      if (other !== undefined && !command.allowDuplicateAppCardIds) {
        throw new AppCardTargetTaken(command.appCardId, other.legacyCardId);
      }
      return [
        {
          type: CardsEventType.AppCardTargetClaimed,
          data: {
            appId: command.appId,
            appCardId: command.appCardId,
            legacyCardId: command.legacyCardId,
            allowDuplicateAppCardIds: command.allowDuplicateAppCardIds,
            claimedAt: command.now,
          },
        },
      ];
    }
    case 'ReleaseAppCardTarget':
      if (!mine) return [];
      return [
        {
          type: CardsEventType.AppCardTargetReleased,
          data: {
            appId: command.appId,
            appCardId: command.appCardId,
            legacyCardId: command.legacyCardId,
            releasedAt: command.now,
          },
        },
      ];
  }
}

export const appCardTargetDecider: Decider<AppCardTargetState, AppCardTargetCommand, AppCardTargetEvent> = {
  initialState: initialAppCardTargetState,
  evolve: evolveAppCardTarget,
  decide: decideAppCardTarget,
};
