import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { CardsEventType, type CardMigrationEvent } from './card-events';

/**
 * The migration of one legacy card to an app card, folded from `cards.migration-{legacyCardId}`.
 * A legacy card is migrated at most once; asking again for the same target reports progress.
 */
export interface CardMigrationState {
  status: 'none' | 'running' | 'completed';
  appId: number | null;
  appCardId: string | null;
  helpdeskAppCardId: string | null;
  startedAt: number | null;
  endedAt: number | null;
}

export type StartCardMigration = {
  type: 'StartCardMigration';
  appId: number;
  legacyCardId: string;
  appCardId: string;
  helpdeskAppCardId?: string;
  allowDuplicateAppCardIds: boolean;
  now: number;
};
export type CompleteCardMigration = { type: 'CompleteCardMigration'; appId: number; legacyCardId: string; now: number };
export type CardMigrationCommand = StartCardMigration | CompleteCardMigration;

export const initialCardMigrationState = (): CardMigrationState => ({
  status: 'none',
  appId: null,
  appCardId: null,
  helpdeskAppCardId: null,
  startedAt: null,
  endedAt: null,
});

export function evolveCardMigration(state: CardMigrationState, event: CardMigrationEvent): CardMigrationState {
  switch (event.type) {
    case CardsEventType.MigrationStarted:
      return {
        status: 'running',
        appId: event.data.appId,
        appCardId: event.data.appCardId,
        helpdeskAppCardId: event.data.helpdeskAppCardId ?? null,
        startedAt: event.data.startedAt,
        endedAt: null,
      };
    case CardsEventType.MigrationCompleted:
      return { ...state, status: 'completed', endedAt: event.data.endedAt };
    default:
      return state;
  }
}

/** Same target as the recorded migration: the request is a progress query, not a new migration. */
export function isSameTarget(
  recorded: { appCardId: string | null; helpdeskAppCardId: string | null },
  requested: { appCardId: string; helpdeskAppCardId?: string },
): boolean {
  if (recorded.appCardId !== requested.appCardId) return false;
  return requested.helpdeskAppCardId === undefined || requested.helpdeskAppCardId === recorded.helpdeskAppCardId;
}

/** 409 for a second target: shared with the card's own decider, which may see the start first. */
export function alreadyMigrating(
  legacyCardId: string,
  completed: boolean,
  target: { appCardId: string | null; helpdeskAppCardId: string | null },
): HubSpotError {
  const to =
    target.helpdeskAppCardId !== null
      ? `app card ${target.appCardId} (help desk: app card ${target.helpdeskAppCardId})`
      : `app card ${target.appCardId}`;
  return HubSpotError.conflict(
    `Legacy CRM card ${legacyCardId} is already ${completed ? 'migrated' : 'being migrated'} to ${to}. A legacy card can be migrated only once; repeat the request with the same app card ids to see its progress.`,
  );
}

export function decideCardMigration(command: CardMigrationCommand, state: CardMigrationState): CardMigrationEvent[] {
  switch (command.type) {
    case 'StartCardMigration': {
      if (state.status !== 'none') {
        if (isSameTarget(state, command)) return [];
        throw alreadyMigrating(command.legacyCardId, state.status === 'completed', state);
      }
      return [
        {
          type: CardsEventType.MigrationStarted,
          data: {
            appId: command.appId,
            legacyCardId: command.legacyCardId,
            appCardId: command.appCardId,
            ...(command.helpdeskAppCardId !== undefined ? { helpdeskAppCardId: command.helpdeskAppCardId } : {}),
            allowDuplicateAppCardIds: command.allowDuplicateAppCardIds,
            startedAt: command.now,
          },
        },
      ];
    }
    case 'CompleteCardMigration':
      if (state.status === 'completed') return [];
      if (state.status === 'none') throw new Error(`no migration of legacy card ${command.legacyCardId} to complete`);
      return [
        {
          type: CardsEventType.MigrationCompleted,
          data: { appId: command.appId, legacyCardId: command.legacyCardId, endedAt: command.now },
        },
      ];
  }
}

export const cardMigrationDecider: Decider<CardMigrationState, CardMigrationCommand, CardMigrationEvent> = {
  initialState: initialCardMigrationState,
  evolve: evolveCardMigration,
  decide: decideCardMigration,
};
