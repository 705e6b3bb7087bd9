import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/commands/command-executor';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { AppCardTargetTaken, appCardTargetDecider } from '../domain/app-card-target.decider';
import { appCardTargetStream, cardStream, migrationStream } from '../domain/card-events';
import { cardMigrationDecider } from '../domain/card-migration.decider';
import { legacyCardDecider } from '../domain/legacy-card.decider';
import { migrationResponse, type CardMigrateViewsResponse } from '../domain/migration-progress';
import { CardsQueries } from './cards.queries';

export interface MigrateViewsInput {
  appId: number;
  legacyCrmCardId: string;
  appCardId: string;
  helpdeskAppCardId?: string;
  allowDuplicateAppCardIds: boolean;
}

/**
 * `POST /crm/v3/extensions/cards-dev/{appId}/views/migrate`: checks the request against the
 * cards of the app, then, all with expected revisions so that any number of instances agree:
 * claims the app card targets (the duplicate rule), marks the legacy card as migrating (deletes
 * are refused from then on) and records MigrationStarted — or reports the progress of the
 * recorded one. Answers at once; the migration worker does the per-account work in the background.
 */
@Injectable()
export class CardMigrationCommands {
  constructor(
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async migrateViews(input: MigrateViewsInput, ctx: CommandContext): Promise<CardMigrateViewsResponse> {
    // Every earlier command (cards, installs, other migrations) is in the read model before we judge.
    await this.runner.waitFor(await this.store.headPosition());
    const { appId, legacyCrmCardId: legacyCardId, appCardId, helpdeskAppCardId } = input;

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

    // A recorded migration is judged by the migration decider alone: the same target is a
    // progress query (the duplicate rule judged it the first time), another target is a 409.
    let claimed: string[] = [];
    if (this.queries.migration(legacyCardId) === null) {
      claimed = await this.claimTargets(input, ctx);
      try {
        await this.executor.execute(
          cardStream(legacyCardId),
          legacyCardDecider,
          (state) =>
            legacyCardDecider.decide(
              {
                kind: 'MarkLegacyCardMigrating',
                cardId: legacyCardId,
                appId,
                appCardId,
                ...(helpdeskAppCardId !== undefined ? { helpdeskAppCardId } : {}),
                now: this.clock.now(),
              },
              state,
            ),
          ctx,
        );
      } catch (error) {
        // Deleted meanwhile, or another request marked it for another target: this one never starts.
        await this.releaseTargets(appId, legacyCardId, claimed, ctx);
        throw error;
      }
    }

    const result = await this.executor.execute(
      migrationStream(legacyCardId),
      cardMigrationDecider,
      (state) =>
        cardMigrationDecider.decide(
          {
            kind: 'StartCardMigration',
            appId,
            legacyCardId,
            appCardId,
            ...(helpdeskAppCardId !== undefined ? { helpdeskAppCardId } : {}),
            allowDuplicateAppCardIds: input.allowDuplicateAppCardIds,
            now: this.clock.now(),
          },
          state,
        ),
      ctx,
    );
    await this.runner.waitFor(result.position);
    const migration = this.queries.migration(legacyCardId);
    if (!migration) throw new Error(`migration of legacy card ${legacyCardId} missing from the read model`);
    return migrationResponse(migration, result.events.length > 0);
  }

  /**
   * Claims each target app card in its own stream. Without allowDuplicateAppCardIds a target
   * another legacy card claimed (or, for migrations recorded before claims existed, that the
   * read model shows) is a 400; claims this request made are released if a later one fails.
   * Returns the app card ids this request newly claimed.
   */
  private async claimTargets(input: MigrateViewsInput, ctx: CommandContext): Promise<string[]> {
    const { appId, legacyCrmCardId: legacyCardId, appCardId, helpdeskAppCardId } = input;
    const targets = [...new Set([appCardId, ...(helpdeskAppCardId !== undefined ? [helpdeskAppCardId] : [])])];
    const fieldOf = (id: string) => (id === appCardId ? 'appCardId' : 'helpdeskAppCardId');
    if (!input.allowDuplicateAppCardIds) {
      const other = this.queries.migrationsTargeting(targets, legacyCardId)[0];
      if (other !== undefined) {
        const taken = targets.find((t) => t === other.appCardId || t === other.helpdeskAppCardId)!;
        throw duplicateTarget(taken, fieldOf(taken), other.legacyCardId, other.endedAt === null);
      }
    }
    const claimed: string[] = [];
    for (const target of targets) {
      try {
        const result = await this.executor.execute(
          appCardTargetStream(appId, target),
          appCardTargetDecider,
          (state) =>
            appCardTargetDecider.decide(
              {
                kind: 'ClaimAppCardTarget',
                appId,
                appCardId: target,
                legacyCardId,
                allowDuplicateAppCardIds: input.allowDuplicateAppCardIds,
                now: this.clock.now(),
              },
              state,
            ),
          ctx,
        );
        if (result.events.length > 0) claimed.push(target);
      } catch (error) {
        await this.releaseTargets(appId, legacyCardId, claimed, ctx);
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

  /** Best effort: a claim left behind by a crash here only makes the duplicate rule stricter. */
  private async releaseTargets(appId: number, legacyCardId: string, targets: string[], ctx: CommandContext) {
    for (const target of targets) {
      await this.executor
        .execute(
          appCardTargetStream(appId, target),
          appCardTargetDecider,
          (state) =>
            appCardTargetDecider.decide(
              { kind: 'ReleaseAppCardTarget', appId, appCardId: target, legacyCardId, now: this.clock.now() },
              state,
            ),
          ctx,
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
