import type { Decider } from '../../platform/commands/decider';
import { CardsEventType, type MigratedViewPosition, type PortalCardMigrated } from './card-events';

/**
 * One account's part of a migration, folded from `cards.migration-{legacyCardId}-portal-{hubId}`.
 * The stream is appended with `no_stream`, so even a resumed or duplicated worker migrates an
 * account once: a second attempt finds the stream and decides nothing.
 */
export interface PortalCardMigrationState {
  migrated: boolean;
}

export type MigratePortalCard = {
  type: 'MigratePortalCard';
  appId: number;
  legacyCardId: string;
  appCardId: string;
  helpdeskAppCardId?: string;
  hubId: number;
  views: MigratedViewPosition[];
  now: number;
};

export const initialPortalCardMigrationState = (): PortalCardMigrationState => ({ migrated: false });

export const evolvePortalCardMigration = (
  state: PortalCardMigrationState,
  event: PortalCardMigrated,
): PortalCardMigrationState => (event.type === CardsEventType.PortalCardMigrated ? { migrated: true } : state);

export function decidePortalCardMigration(
  command: MigratePortalCard,
  state: PortalCardMigrationState,
): PortalCardMigrated[] {
  if (state.migrated) return [];
  return [
    {
      type: CardsEventType.PortalCardMigrated,
      data: {
        appId: command.appId,
        legacyCardId: command.legacyCardId,
        appCardId: command.appCardId,
        ...(command.helpdeskAppCardId !== undefined ? { helpdeskAppCardId: command.helpdeskAppCardId } : {}),
        hubId: command.hubId,
        views: command.views,
        migratedAt: command.now,
      },
    },
  ];
}

export const portalCardMigrationDecider: Decider<PortalCardMigrationState, MigratePortalCard, PortalCardMigrated> = {
  initialState: initialPortalCardMigrationState,
  evolve: evolvePortalCardMigration,
  decide: decidePortalCardMigration,
};
