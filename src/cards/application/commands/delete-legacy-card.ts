import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { cardStream, migrationStream } from '../../domain/card-events';
import { cardMigrationDecider } from '../../domain/card-migration.decider';
import { type DeleteLegacyCard as Decided, legacyCardDecider } from '../../domain/legacy-card.decider';
import { CardsQueries } from '../cards.queries';

/**
 * A developer deletes a legacy CRM card; refused (409) while the card is being migrated. The decider's
 * command of that name, without the facts the handler adds (the time, the migration's status and progress).
 */
export class DeleteLegacyCard extends Command<void> implements Omit<Decided, 'now' | 'migrationStatus' | 'progress'> {
  readonly type = 'DeleteLegacyCard' as const;
  constructor(
    readonly appId: number,
    readonly cardId: string,
    readonly userId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(DeleteLegacyCard)
export class DeleteLegacyCardHandler implements ICommandHandler<DeleteLegacyCard> {
  /** The legacy card's own stream, bound once: load, decide, append, retry on conflict. */
  private readonly cards;

  constructor(
    private readonly streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.cards = streams.forDecider(legacyCardDecider);
  }

  async execute(command: DeleteLegacyCard): Promise<void> {
    const { cardId, context } = command;
    // Completed is final, so reading the migration's status before deciding cannot let a delete
    // through wrongly; a start racing this delete is serialized on the card's own stream.
    const migration = await this.streams.load(migrationStream(cardId), cardMigrationDecider);
    const progress = this.queries.migration(cardId);
    const { position } = await this.cards.handle(
      cardStream(cardId),
      {
        ...command,
        now: this.clock.now(),
        migrationStatus: migration.state.status,
        ...(progress
          ? { progress: { remaining: progress.remainingPortalCount, total: progress.totalPortalCount } }
          : {}),
      },
      context,
    );
    // Committed: answered even when the read models cannot catch up now (readiness reports it).
    await this.runner.readModelsReached(position);
  }
}
