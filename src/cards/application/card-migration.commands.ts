import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../../shared/clock';
import { CommandExecutor } from '../../shared/commands/command-executor';
import { HubSpotError } from '../../shared/errors/hubspot-error';
import type { CommandContext } from '../../shared/events/envelope';
import { EVENT_STORE, type EventStore } from '../../shared/event-store/event-store.port';
import { ProjectionRunner } from '../../shared/projections/projection-runner';
import { cardMigrationDecider } from '../domain/card-migration.decider';
import { migrationStream } from '../domain/card-events';
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
 * cards of the app, records MigrationStarted (or reports the progress of the recorded one) and
 * answers at once; the migration worker does the per-account work in the background.
 */
@Injectable()
export class CardMigrationCommands {
  /** Per app, one migrate request decides at a time, so two requests cannot both claim one app card. */
  private readonly appLocks = new Map<number, Promise<unknown>>();

  constructor(
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  migrateViews(input: MigrateViewsInput, ctx: CommandContext): Promise<CardMigrateViewsResponse> {
    const previous = this.appLocks.get(input.appId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.decideAndRecord(input, ctx));
    const tail = run.catch(() => undefined);
    this.appLocks.set(input.appId, tail);
    void tail.then(() => {
      if (this.appLocks.get(input.appId) === tail) this.appLocks.delete(input.appId);
    });
    return run;
  }

  private async decideAndRecord(input: MigrateViewsInput, ctx: CommandContext): Promise<CardMigrateViewsResponse> {
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

    const existing = this.queries.migration(legacyCardId);
    // A recorded migration is judged by the decider alone: the same target is a progress query
    // (the duplicate rule judged it the first time), another target is a 409.
    if (existing === null && !input.allowDuplicateAppCardIds) {
      const targets = [appCardId, ...(helpdeskAppCardId !== undefined ? [helpdeskAppCardId] : [])];
      const others = this.queries.migrationsTargeting(targets, legacyCardId);
      if (others.length > 0) {
        const other = others[0]!;
        const taken = targets.find((t) => t === other.appCardId || t === other.helpdeskAppCardId)!;
        const field = taken === appCardId ? 'appCardId' : 'helpdeskAppCardId';
        const message = `App card ${taken} is already the target of the migration of legacy CRM card ${other.legacyCardId}${other.endedAt !== null ? '' : ' (in progress)'}. To consolidate several legacy cards into one app card on purpose, send "allowDuplicateAppCardIds": true; otherwise choose an app card that no other migration uses.`;
        throw HubSpotError.validation(message, [{ message, in: field, code: 'DUPLICATE_APP_CARD_ID' }]);
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
            portals: this.queries.portalsHoldingLegacyCard(legacyCardId),
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
}
