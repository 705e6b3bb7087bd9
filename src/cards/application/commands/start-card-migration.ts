import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { answerFromReadModelOr } from '../../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { AppCardTargetTaken, appCardTargetDecider } from '../../domain/app-card-target.decider';
import { appCardTargetStream, cardStream, migrationStream } from '../../domain/card-events';
import { cardMigrationDecider, type CardMigrationState } from '../../domain/card-migration.decider';
import { legacyCardDecider } from '../../domain/legacy-card.decider';
import {
  migrationResponse,
  type CardMigrateViewsResponse,
  type MigrationProgress,
} from '../../domain/migration-progress';
import { CardsQueries } from '../cards.queries';

export interface CardMigrationRequest {
  appId: number;
  legacyCardId: string;
  appCardId: string;
  helpdeskAppCardId?: string;
  allowDuplicateAppCardIds: boolean;
}

/**
 * `POST /crm/v3/extensions/cards-dev/{appId}/views/migrate`: starts swapping a legacy card for an
 * app card in every account's views, or reports the progress of the migration already recorded.
 * Answers at once; the migration worker does the per-account work in the background.
 */
export class StartCardMigration extends Command<CardMigrateViewsResponse> {
  constructor(
    readonly request: CardMigrationRequest,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * The migration start is a process over three kinds of stream, each step decided by its own
 * decider and appended with an expected revision, so that any number of instances agree:
 *  1. checkRequest: the cards of the request, against the read model (404 / 400);
 *  2. claimTargets: each target app card's `cards.app-card-target-…` stream (the duplicate rule);
 *  3. markLegacyCardMigrating: the legacy card's own stream, which refuses deletes from then on;
 *  4. recordStart: MigrationStarted in `cards.migration-{legacyCardId}` — or, for a migration
 *     already recorded, nothing: the same target is a progress query, another one a 409.
 * When step 2 or 3 fails, releaseClaims undoes the claims this request made.
 */
@CommandHandler(StartCardMigration)
export class StartCardMigrationHandler implements ICommandHandler<StartCardMigration> {
  private readonly targets;
  private readonly cards;
  private readonly migrations;

  constructor(
    streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.targets = streams.forDecider(appCardTargetDecider);
    this.cards = streams.forDecider(legacyCardDecider);
    this.migrations = streams.forDecider(cardMigrationDecider);
  }

  async execute({ request, context }: StartCardMigration): Promise<CardMigrateViewsResponse> {
    // Every earlier command (cards, installs, other migrations) is in the read model before we judge.
    await this.runner.waitForHead();
    this.checkRequest(request);
    // A recorded migration is judged by the migration decider alone (step 4): the duplicate rule
    // judged it the first time.
    if (this.queries.migration(request.legacyCardId) === null) {
      const claimed = await this.claimTargets(request, context);
      try {
        await this.markLegacyCardMigrating(request, context);
      } catch (error) {
        // Deleted meanwhile, or another request marked it for another target: this one never starts.
        await this.releaseClaims(request, claimed, context);
        throw error;
      }
    }
    const started = await this.recordStart(request, context);
    const justStarted = started.events.length > 0;
    return answerFromReadModelOr(
      this.runner,
      started.position,
      () => {
        const migration = this.queries.migration(request.legacyCardId);
        return migration && migrationResponse(migration, justStarted);
      },
      () => migrationResponse(this.decidedProgress(request.legacyCardId, started.state), justStarted),
    );
  }

  /**
   * The answer while the read model lags behind the start: the accounts that hold the legacy card
   * (the read model was at the head just before the start) are all still to migrate.
   */
  private decidedProgress(legacyCardId: string, state: CardMigrationState): MigrationProgress {
    const recorded = this.queries.migration(legacyCardId);
    if (recorded) return recorded;
    const total = this.queries.portalsHoldingLegacyCard(legacyCardId);
    return {
      legacyCardId,
      appCardId: state.appCardId!,
      helpdeskAppCardId: state.helpdeskAppCardId,
      startedAt: state.startedAt!,
      endedAt: state.endedAt,
      totalPortalCount: total,
      remainingPortalCount: state.status === 'completed' ? 0 : total,
    };
  }

  /** The legacy card and app cards are this app's; a card on tickets names its help-desk app card. */
  private checkRequest({ appId, legacyCardId, appCardId, helpdeskAppCardId }: CardMigrationRequest): void {
    const legacy = this.queries.legacyCard(legacyCardId);
    if (!legacy || legacy.appId !== appId) {
      throw HubSpotError.notFound(`Legacy CRM card ${legacyCardId} was not found in app ${appId}.`);
    }
    for (const [field, id] of [
      ['appCardId', appCardId],
      ['helpdeskAppCardId', helpdeskAppCardId],
    ] as const) {
      if (id === undefined) continue;
      const card = this.queries.appCard(id);
      if (!card || card.appId !== appId) {
        throw HubSpotError.notFound(`App card ${id} (${field}) was not found in app ${appId}.`);
      }
    }
    if (legacy.objectTypes.includes('tickets') && helpdeskAppCardId === undefined) {
      const message = `Legacy CRM card ${legacyCardId} supports tickets, so it is also in help-desk views: send helpdeskAppCardId, the app card to show there.`;
      throw HubSpotError.validation(message, [{ message, in: 'helpdeskAppCardId', code: 'REQUIRED' }]);
    }
  }

  /**
   * Claims each target app card in its own stream. Without allowDuplicateAppCardIds a target
   * another legacy card claimed (or, for migrations recorded before claims existed, that the
   * read model shows) is a 400; claims this request made are released if a later one fails.
   * Returns the app card ids this request newly claimed.
   */
  private async claimTargets(request: CardMigrationRequest, context: CommandContext): Promise<string[]> {
    const { appId, legacyCardId, appCardId, helpdeskAppCardId, allowDuplicateAppCardIds } = request;
    const targets = [...new Set([appCardId, ...(helpdeskAppCardId !== undefined ? [helpdeskAppCardId] : [])])];
    const fieldOf = (id: string) => (id === appCardId ? 'appCardId' : 'helpdeskAppCardId');
    if (!allowDuplicateAppCardIds) {
      const other = this.queries.migrationsTargeting(targets, legacyCardId)[0];
      if (other !== undefined) {
        const taken = targets.find((t) => t === other.appCardId || t === other.helpdeskAppCardId)!;
        throw duplicateTarget(taken, fieldOf(taken), other.legacyCardId, other.endedAt === null);
      }
    }
    const claimed: string[] = [];
    for (const target of targets) {
      try {
        const result = await this.targets.handle(
          appCardTargetStream(appId, target),
          {
            type: 'ClaimAppCardTarget',
            appId,
            appCardId: target,
            legacyCardId,
            allowDuplicateAppCardIds,
            now: this.clock.now(),
          },
          context,
        );
        if (result.events.length > 0) claimed.push(target);
      } catch (error) {
        await this.releaseClaims(request, claimed, context);
        if (error instanceof AppCardTargetTaken) {
          const holder = this.queries.migration(error.holderLegacyCardId);
          // A holder without a recorded migration is one starting right now.
          throw duplicateTarget(target, fieldOf(target), error.holderLegacyCardId, holder?.endedAt == null);
        }
        throw error;
      }
    }
    return claimed;
  }

  /** From here on the legacy card refuses deletes (decided on its own stream, so no delete slips past). */
  private async markLegacyCardMigrating(request: CardMigrationRequest, context: CommandContext): Promise<void> {
    const { appId, legacyCardId, appCardId, helpdeskAppCardId } = request;
    await this.cards.handle(
      cardStream(legacyCardId),
      {
        type: 'MarkLegacyCardMigrating',
        cardId: legacyCardId,
        appId,
        appCardId,
        ...(helpdeskAppCardId !== undefined ? { helpdeskAppCardId } : {}),
        now: this.clock.now(),
      },
      context,
    );
  }

  private recordStart(request: CardMigrationRequest, context: CommandContext) {
    const { appId, legacyCardId, appCardId, helpdeskAppCardId, allowDuplicateAppCardIds } = request;
    return this.migrations.handle(
      migrationStream(legacyCardId),
      {
        type: 'StartCardMigration',
        appId,
        legacyCardId,
        appCardId,
        ...(helpdeskAppCardId !== undefined ? { helpdeskAppCardId } : {}),
        allowDuplicateAppCardIds,
        now: this.clock.now(),
      },
      context,
    );
  }

  /** Best effort: a claim left behind by a crash here only makes the duplicate rule stricter. */
  private async releaseClaims(request: CardMigrationRequest, targets: string[], context: CommandContext) {
    const { appId, legacyCardId } = request;
    for (const target of targets) {
      await this.targets
        .handle(
          appCardTargetStream(appId, target),
          { type: 'ReleaseAppCardTarget', appId, appCardId: target, legacyCardId, now: this.clock.now() },
          context,
        )
        .catch(() => undefined);
    }
  }
}

function duplicateTarget(
  appCardId: string,
  field: 'appCardId' | 'helpdeskAppCardId',
  otherLegacyCardId: string,
  inProgress: boolean,
): HubSpotError {
  const message = `App card ${appCardId} is already the target of the migration of legacy CRM card ${otherLegacyCardId}${inProgress ? ' (in progress)' : ''}. To consolidate several legacy cards into one app card on purpose, send "allowDuplicateAppCardIds": true; otherwise choose an app card that no other migration uses.`;
  return HubSpotError.validation(message, [{ message, in: field, code: 'DUPLICATE_APP_CARD_ID' }]);
}
