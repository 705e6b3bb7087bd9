import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { migrationStream } from '../../domain/card-events';
import { cardMigrationDecider, type CompleteCardMigration as Decided } from '../../domain/card-migration.decider';

/** Sent by the migration worker once no account is left to migrate: the migration has ended. */
export class CompleteCardMigration extends Command<void> implements Omit<Decided, 'now'> {
  readonly type = 'CompleteCardMigration' as const;
  constructor(
    readonly appId: number,
    readonly legacyCardId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CompleteCardMigration)
export class CompleteCardMigrationHandler implements ICommandHandler<CompleteCardMigration> {
  private readonly migrations;

  constructor(
    streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.migrations = streams.forDecider(cardMigrationDecider);
  }

  async execute(command: CompleteCardMigration): Promise<void> {
    await this.migrations.handle(
      migrationStream(command.legacyCardId),
      { ...command, now: this.clock.now() },
      command.context,
    );
  }
}
