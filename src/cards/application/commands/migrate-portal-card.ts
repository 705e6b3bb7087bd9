import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ConcurrencyError } from '../../../platform/event-store/concurrency-error';
import { portalMigrationStream, type MigratedViewPosition } from '../../domain/card-events';
import { HELPDESK_VIEW, type CrmView } from '../../domain/card-views';
import {
  type MigratePortalCard as Decided,
  portalCardMigrationDecider,
} from '../../domain/portal-card-migration.decider';

/** The migration an account's part belongs to: which legacy card goes, which app card(s) take its places. */
export interface PortalMigrationTarget {
  appId: number;
  legacyCardId: string;
  appCardId: string;
  helpdeskAppCardId: string | null;
}

/**
 * One account's part of a migration: the app card takes the legacy card's places in the account's
 * views. The portal-migration decider's command of the same name (the places turned into the views
 * each card takes); the handler adds the time. Resolves true when this command migrated the account,
 * false when it was migrated already.
 */
export class MigratePortalCard extends Command<boolean> implements Omit<Decided, 'now'> {
  readonly type = 'MigratePortalCard' as const;
  readonly appId: number;
  readonly legacyCardId: string;
  readonly appCardId: string;
  readonly helpdeskAppCardId: string | undefined;
  readonly views: MigratedViewPosition[];

  constructor(
    m: PortalMigrationTarget,
    readonly hubId: number,
    /** Where the legacy card sits in the account's views (0-based sidebar positions). */
    places: ReadonlyArray<{ view: CrmView; position: number }>,
    readonly context: CommandContext,
  ) {
    super();
    this.appId = m.appId;
    this.legacyCardId = m.legacyCardId;
    this.appCardId = m.appCardId;
    this.helpdeskAppCardId = m.helpdeskAppCardId ?? undefined;
    this.views = places.map((p) => ({
      view: p.view,
      position: p.position,
      cardId: p.view === HELPDESK_VIEW ? (m.helpdeskAppCardId ?? m.appCardId) : m.appCardId,
    }));
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

  async execute(command: MigratePortalCard): Promise<boolean> {
    const stream = portalMigrationStream(command.legacyCardId, command.hubId);
    try {
      await this.portalMigrations.handleNew(stream, { ...command, now: this.clock.now() }, command.context);
      return true;
    } catch (error) {
      if (error instanceof ConcurrencyError) return false; // migrated before a restart: nothing to do
      throw error;
    }
  }
}
