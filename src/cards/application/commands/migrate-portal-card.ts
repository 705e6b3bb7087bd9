import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ConcurrencyError } from '../../../platform/event-store/concurrency-error';
import { portalMigrationStream, type MigratedViewPosition } from '../../domain/card-events';
import { HELPDESK_VIEW, type CrmView } from '../../domain/card-views';
import { portalCardMigrationDecider } from '../../domain/portal-card-migration.decider';

/** The migration an account's part belongs to: which legacy card goes, which app card(s) take its places. */
export interface PortalMigrationTarget {
  appId: number;
  legacyCardId: string;
  appCardId: string;
  helpdeskAppCardId: string | null;
}

/**
 * One account's part of a migration: the app card takes the legacy card's places in the account's
 * views. Resolves true when this command migrated the account, false when it was migrated already.
 */
export class MigratePortalCard extends Command<boolean> {
  constructor(
    readonly migration: PortalMigrationTarget,
    readonly hubId: number,
    /** Where the legacy card sits in the account's views (0-based sidebar positions). */
    readonly places: ReadonlyArray<{ view: CrmView; position: number }>,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Sent by the migration worker for up to 100,000s of accounts, hundreds in flight so the store
 * commits them in large groups. An account's stream is written once: the decider is asked with
 * the initial state and the append expects `no_stream` — one write per account, no read. If the
 * stream exists after all (a run before a restart got there first), the store refuses the append
 * and the account is left as it is: what the decider decides for a migrated account.
 */
@CommandHandler(MigratePortalCard)
export class MigratePortalCardHandler implements ICommandHandler<MigratePortalCard> {
  private readonly portalMigrations;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.portalMigrations = streams.forDecider(portalCardMigrationDecider);
  }

  async execute({ migration: m, hubId, places, context }: MigratePortalCard): Promise<boolean> {
    const views: MigratedViewPosition[] = places.map((p) => ({
      view: p.view,
      position: p.position,
      cardId: p.view === HELPDESK_VIEW ? (m.helpdeskAppCardId ?? m.appCardId) : m.appCardId,
    }));
    const command = {
      kind: 'MigratePortalCard',
      appId: m.appId,
      legacyCardId: m.legacyCardId,
      appCardId: m.appCardId,
      ...(m.helpdeskAppCardId !== null ? { helpdeskAppCardId: m.helpdeskAppCardId } : {}),
      hubId,
      views,
      now: this.clock.now(),
    } as const;
    try {
      await this.portalMigrations.handleNew(portalMigrationStream(m.legacyCardId, hubId), command, context);
      return true;
    } catch (error) {
      if (error instanceof ConcurrencyError) return false; // migrated before a restart: nothing to do
      throw error;
    }
  }
}
