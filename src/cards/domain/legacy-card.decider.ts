import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { alreadyMigrating, isSameTarget } from './card-migration.decider';
import {
  CardsEventType,
  type AppCardCreated,
  type LegacyCardDefinition,
  type LegacyCardEvent,
  type LegacyCardPatch,
} from './card-events';

/**
 * A legacy CRM card, folded from `cards.card-{id}`. That stream may hold an app card instead
 * (one id space): for legacy-card commands such a stream is "not a legacy card".
 */
export interface LegacyCardState {
  status: 'absent' | 'live' | 'deleted' | 'other-kind';
  cardId: string | null;
  appId: number | null;
  definition: LegacyCardDefinition | null;
  /** Set by LegacyCardMigrationStarted: the target of the migration, which this stream serializes with deletes. */
  migration: { appCardId: string; helpdeskAppCardId: string | null } | null;
}

/** What `cards.card-{id}` may hold: a legacy card's events, or an app card's creation. */
export type LegacyCardStreamEvent = LegacyCardEvent | AppCardCreated;

export type CreateLegacyCard = {
  type: 'CreateLegacyCard';
  cardId: string;
  appId: number;
  definition: LegacyCardDefinition;
  userId: number;
  now: number;
};
export type UpdateLegacyCard = {
  type: 'UpdateLegacyCard';
  cardId: string;
  appId: number;
  patch: LegacyCardPatch;
  userId: number;
  now: number;
};
export type DeleteLegacyCard = {
  type: 'DeleteLegacyCard';
  cardId: string;
  appId: number;
  userId: number;
  now: number;
  /**
   * The status of `cards.migration-{cardId}`, read before deciding. Only `completed` lets a
   * marked card go, and completed is final, so reading it early is safe.
   */
  migrationStatus: 'none' | 'running' | 'completed';
  /** For the message only: the read model's progress of the migration, when it has one. */
  progress?: { remaining: number; total: number };
};
/** The first step of a migration: the card refuses deletes from here on. */
export type MarkLegacyCardMigrating = {
  type: 'MarkLegacyCardMigrating';
  cardId: string;
  appId: number;
  appCardId: string;
  helpdeskAppCardId?: string;
  now: number;
};
export type LegacyCardCommand = CreateLegacyCard | UpdateLegacyCard | DeleteLegacyCard | MarkLegacyCardMigrating;

/** Thrown when a freshly allocated id is already taken: the allocator moves on to the next one. */
export class CardIdTaken extends Error {
  constructor(readonly cardId: string) {
    super(`card id ${cardId} is taken`);
    this.name = 'CardIdTaken';
  }
}

export const initialLegacyCardState = (): LegacyCardState => ({
  status: 'absent',
  cardId: null,
  appId: null,
  definition: null,
  migration: null,
});

export function evolveLegacyCard(state: LegacyCardState, event: LegacyCardStreamEvent): LegacyCardState {
  switch (event.type) {
    case CardsEventType.LegacyCardCreated:
      return {
        status: 'live',
        cardId: event.data.cardId,
        appId: event.data.appId,
        definition: event.data.definition,
        migration: null,
      };
    case CardsEventType.LegacyCardUpdated:
      return { ...state, definition: event.data.definition };
    case CardsEventType.LegacyCardDeleted:
      return { ...state, status: 'deleted' };
    case CardsEventType.LegacyCardMigrationStarted:
      return {
        ...state,
        migration: { appCardId: event.data.appCardId, helpdeskAppCardId: event.data.helpdeskAppCardId ?? null },
      };
    case CardsEventType.AppCardCreated:
      return { ...state, status: 'other-kind', cardId: event.data.appCardId, appId: event.data.appId };
    default:
      return state;
  }
}

const notFound = (cardId: string, appId: number) =>
  HubSpotError.notFound(`Legacy CRM card ${cardId} was not found in app ${appId}.`);

/** Applies a patch: a given part replaces the old one; in `fetch`, an omitted targetUrl is kept. */
export function applyPatch(definition: LegacyCardDefinition, patch: LegacyCardPatch): LegacyCardDefinition {
  const next: LegacyCardDefinition = structuredClone(definition);
  if (patch.title !== undefined) next.title = patch.title;
  if (patch.fetch !== undefined) {
    next.fetch.objectTypes = structuredClone(patch.fetch.objectTypes);
    if (patch.fetch.targetUrl !== undefined) next.fetch.targetUrl = patch.fetch.targetUrl;
    if (patch.fetch.cardType !== undefined) next.fetch.cardType = patch.fetch.cardType;
    if (patch.fetch.serverlessFunction !== undefined) next.fetch.serverlessFunction = patch.fetch.serverlessFunction;
  }
  if (patch.display !== undefined) next.display = structuredClone(patch.display);
  if (patch.actions !== undefined) next.actions = structuredClone(patch.actions);
  return next;
}

export function decideLegacyCard(command: LegacyCardCommand, state: LegacyCardState): LegacyCardEvent[] {
  switch (command.type) {
    case 'CreateLegacyCard':
      if (state.status !== 'absent') throw new CardIdTaken(command.cardId);
      return [
        {
          type: CardsEventType.LegacyCardCreated,
          data: {
            cardId: command.cardId,
            appId: command.appId,
            definition: command.definition,
            createdAt: command.now,
            userId: command.userId,
          },
        },
      ];
    case 'UpdateLegacyCard': {
      if (state.status !== 'live' || state.appId !== command.appId) throw notFound(command.cardId, command.appId);
      const changed = (['title', 'fetch', 'display', 'actions'] as const).filter((k) => command.patch[k] !== undefined);
      return [
        {
          type: CardsEventType.LegacyCardUpdated,
          data: {
            cardId: command.cardId,
            appId: command.appId,
            changed,
            definition: applyPatch(state.definition!, command.patch),
            updatedAt: command.now,
            userId: command.userId,
          },
        },
      ];
    }
    case 'DeleteLegacyCard': {
      if (state.status !== 'live' || state.appId !== command.appId) throw notFound(command.cardId, command.appId);
      // Marked but not yet started (a start in flight) counts as migrating; so does a running
      // migration recorded before cards were marked.
      const migrating =
        command.migrationStatus === 'running' || (state.migration !== null && command.migrationStatus !== 'completed');
      if (migrating) {
        const appCardId = state.migration?.appCardId;
        const progress = command.progress
          ? ` (${command.progress.remaining} of ${command.progress.total} portals remaining)`
          : '';
        throw HubSpotError.conflict(
          `Legacy CRM card ${command.cardId} is being migrated${appCardId !== undefined ? ` to app card ${appCardId}` : ''}${progress}. Delete it once the migration has ended.`,
        );
      }
      return [
        {
          type: CardsEventType.LegacyCardDeleted,
          data: { cardId: command.cardId, appId: command.appId, deletedAt: command.now, userId: command.userId },
        },
      ];
    }
    case 'MarkLegacyCardMigrating': {
      if (state.status !== 'live' || state.appId !== command.appId) throw notFound(command.cardId, command.appId);
      if (state.migration !== null) {
        if (isSameTarget(state.migration, command)) return [];
        // Another request marked it first; its MigrationStarted may not be recorded yet.
        throw alreadyMigrating(command.cardId, false, state.migration);
      }
      return [
        {
          type: CardsEventType.LegacyCardMigrationStarted,
          data: {
            cardId: command.cardId,
            appId: command.appId,
            appCardId: command.appCardId,
            ...(command.helpdeskAppCardId !== undefined ? { helpdeskAppCardId: command.helpdeskAppCardId } : {}),
            startedAt: command.now,
          },
        },
      ];
    }
  }
}

export const legacyCardDecider: Decider<LegacyCardState, LegacyCardCommand, LegacyCardStreamEvent> = {
  initialState: initialLegacyCardState,
  evolve: evolveLegacyCard,
  decide: decideLegacyCard,
};
