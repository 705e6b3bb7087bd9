import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';
import type { CardObjectType, CrmView } from './card-views';

/** Event types of the cards module. Stable strings: they are what storage holds. */
export const CardsEventType = {
  LegacyCardCreated: 'cards.LegacyCardCreated',
  LegacyCardUpdated: 'cards.LegacyCardUpdated',
  LegacyCardDeleted: 'cards.LegacyCardDeleted',
  AppCardCreated: 'cards.AppCardCreated',
  LegacyCardMigrationStarted: 'cards.LegacyCardMigrationStarted',
  AppCardTargetClaimed: 'cards.AppCardTargetClaimed',
  AppCardTargetReleased: 'cards.AppCardTargetReleased',
  MigrationStarted: 'cards.MigrationStarted',
  PortalCardMigrated: 'cards.PortalCardMigrated',
  MigrationCompleted: 'cards.MigrationCompleted',
} as const;

export type CardType = 'EXTERNAL' | 'SERVERLESS';
export type DisplayDataType =
  'BOOLEAN' | 'CURRENCY' | 'DATE' | 'DATETIME' | 'EMAIL' | 'LINK' | 'NUMERIC' | 'STATUS' | 'STRING';
export type DisplayOptionType = 'DANGER' | 'DEFAULT' | 'INFO' | 'SUCCESS' | 'WARNING';

export interface CardObjectTypeBody {
  name: CardObjectType;
  propertiesToSend: string[];
}

export interface DisplayOption {
  name: string;
  label: string;
  type: DisplayOptionType;
}

export interface DisplayProperty {
  name: string;
  label: string;
  dataType: DisplayDataType;
  options: DisplayOption[];
}

/** Everything a legacy CRM card is, as the developer defined it. */
export interface LegacyCardDefinition {
  title: string;
  fetch: {
    targetUrl: string;
    objectTypes: CardObjectTypeBody[];
    cardType?: CardType;
    serverlessFunction?: string;
  };
  display: { properties: DisplayProperty[] };
  actions: { baseUrls: string[] };
}

/** A PATCH: every top-level part optional; `fetch.objectTypes` required when `fetch` is given. */
export interface LegacyCardPatch {
  title?: string;
  fetch?: {
    objectTypes: CardObjectTypeBody[];
    targetUrl?: string;
    cardType?: CardType;
    serverlessFunction?: string;
  };
  display?: { properties: DisplayProperty[] };
  actions?: { baseUrls: string[] };
}

/** Card ids are decimal strings (HubSpot's habit), so int64 ids never pass through a double. */
export interface LegacyCardCreated {
  type: typeof CardsEventType.LegacyCardCreated;
  data: { cardId: string; appId: number; definition: LegacyCardDefinition; createdAt: number; userId: number };
}

export interface LegacyCardUpdated {
  type: typeof CardsEventType.LegacyCardUpdated;
  /** `definition` is the whole card after the patch; `changed` names the parts the patch touched. */
  data: {
    cardId: string;
    appId: number;
    changed: Array<keyof LegacyCardPatch>;
    definition: LegacyCardDefinition;
    updatedAt: number;
    userId: number;
  };
}

export interface LegacyCardDeleted {
  type: typeof CardsEventType.LegacyCardDeleted;
  data: { cardId: string; appId: number; deletedAt: number; userId: number };
}

/**
 * In the card's own stream: from here on the card is being migrated, so a delete (decided on
 * the same stream, with the expected revision) is refused. Appended before MigrationStarted.
 */
export interface LegacyCardMigrationStarted {
  type: typeof CardsEventType.LegacyCardMigrationStarted;
  data: { cardId: string; appId: number; appCardId: string; helpdeskAppCardId?: string; startedAt: number };
}

/**
 * In `cards.app-card-target-{appId}-{appCardId}`: a legacy card's migration will show in this app
 * card. Appended with the expected revision, so "no other migration targets it" holds across
 * instances; released when the migration it was claimed for could not start.
 */
export interface AppCardTargetClaimed {
  type: typeof CardsEventType.AppCardTargetClaimed;
  data: {
    appId: number;
    appCardId: string;
    legacyCardId: string;
    allowDuplicateAppCardIds: boolean;
    claimedAt: number;
  };
}

export interface AppCardTargetReleased {
  type: typeof CardsEventType.AppCardTargetReleased;
  data: { appId: number; appCardId: string; legacyCardId: string; releasedAt: number };
}

export interface AppCardCreated {
  type: typeof CardsEventType.AppCardCreated;
  data: { appCardId: string; appId: number; title: string; objectTypes: CardObjectType[]; createdAt: number };
}

/** Older stored shapes are upcast on read: see decodeMigrationStarted. */
export interface MigrationStarted {
  type: typeof CardsEventType.MigrationStarted;
  data: {
    appId: number;
    legacyCardId: string;
    appCardId: string;
    helpdeskAppCardId?: string;
    allowDuplicateAppCardIds: boolean;
    startedAt: number;
  };
}

export interface MigratedViewPosition {
  view: CrmView;
  /** 0-based place in that view's sidebar, which the app card now holds. */
  position: number;
  cardId: string;
}

export interface PortalCardMigrated {
  type: typeof CardsEventType.PortalCardMigrated;
  data: {
    appId: number;
    legacyCardId: string;
    appCardId: string;
    helpdeskAppCardId?: string;
    hubId: number;
    views: MigratedViewPosition[];
    migratedAt: number;
  };
}

export interface MigrationCompleted {
  type: typeof CardsEventType.MigrationCompleted;
  data: { appId: number; legacyCardId: string; endedAt: number };
}

export type LegacyCardEvent = LegacyCardCreated | LegacyCardUpdated | LegacyCardDeleted | LegacyCardMigrationStarted;
export type AppCardTargetEvent = AppCardTargetClaimed | AppCardTargetReleased;
export type CardMigrationEvent = MigrationStarted | MigrationCompleted;
/** Every event the cards module owns (cardsEvents defines each of them for the registry). */
type CardsEvent = LegacyCardEvent | AppCardCreated | CardMigrationEvent | PortalCardMigrated | AppCardTargetEvent;

/** Legacy cards and app cards share one id space, so both live under `cards.card-{id}`. */
export const cardStream = (cardId: string) => `cards.card-${cardId}`;
export const migrationStream = (legacyCardId: string) => `cards.migration-${legacyCardId}`;
/** Who migrates into one app card (the duplicate-target rule): see AppCardTargetClaimed. */
export const appCardTargetStream = (appId: number, appCardId: string) => `cards.app-card-target-${appId}-${appCardId}`;
/** One stream per account per migration: appended with `no_stream`, so no account is migrated twice. */
export const portalMigrationStream = (legacyCardId: string, hubId: number) =>
  `cards.migration-${legacyCardId}-portal-${hubId}`;

/**
 * `cards.MigrationStarted` as stored, in its current shape. The first shape (commit 47d1773, before
 * migration starts were serialized with deletes) also held `portals`: the read model's count of
 * accounts holding the legacy card when the command decided. The read model has always counted
 * them itself, in feed order (exact when an install races the start), so the upcast drops it.
 */
export function decodeMigrationStarted(data: unknown): MigrationStarted['data'] {
  const stored = data as MigrationStarted['data'] & { portals?: number };
  if (!('portals' in stored)) return stored; // the current shape: no copy on every read
  const { portals: _recountedByTheReadModel, ...current } = stored;
  return current;
}

/** The event types the cards module owns, for the registry: every one of CardsEvent, upcast where needed. */
export const cardsEvents: EventDefinitions = {
  [CardsEventType.LegacyCardCreated]: null,
  [CardsEventType.LegacyCardUpdated]: null,
  [CardsEventType.LegacyCardDeleted]: null,
  [CardsEventType.AppCardCreated]: null,
  [CardsEventType.LegacyCardMigrationStarted]: null,
  [CardsEventType.AppCardTargetClaimed]: null,
  [CardsEventType.AppCardTargetReleased]: null,
  [CardsEventType.MigrationStarted]: decodeMigrationStarted,
  [CardsEventType.PortalCardMigrated]: null,
  [CardsEventType.MigrationCompleted]: null,
} satisfies Record<CardsEvent['type'], EventDecoder | null>;
