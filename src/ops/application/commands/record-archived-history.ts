import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DeciderCommandHandler } from '../../../platform/commands/event-streams';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { ArchivedBatch } from '../../../platform/archive/history-archiver';
import type { CommandContext } from '../../../platform/events/envelope';
import {
  historyArchiveDecider,
  type HistoryArchiveState,
  type RecordArchivedHistoryCommand,
} from '../../domain/history-archive.decider';
import { historyArchiveStream, type HistoryArchived } from '../../domain/ops-events';

/** Records an archive batch (ops.HistoryArchived) and removes its events from the live store (the store's retention). */
export class RecordArchivedHistory extends Command<void> {
  constructor(
    readonly batch: ArchivedBatch,
    readonly retentionDays: number,
    /** When the batch is recorded (the archiver's clock). */
    readonly now: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordArchivedHistory)
export class RecordArchivedHistoryHandler implements ICommandHandler<RecordArchivedHistory> {
  private readonly history: DeciderCommandHandler<HistoryArchiveState, RecordArchivedHistoryCommand, HistoryArchived>;

  constructor(streams: EventStreams) {
    this.history = streams.forDecider(historyArchiveDecider);
  }

  async execute({ batch, retentionDays, now, context }: RecordArchivedHistory): Promise<void> {
    const { file, segment } = batch;
    // Recorded already: the decider decides nothing, and nothing is appended or removed (its
    // events were removed before or with that record).
    await this.history.handle(
      historyArchiveStream(file),
      { type: 'RecordArchivedHistory', batch: { file, ...segment }, retentionDays, now },
      context,
      undefined,
      batch,
    );
  }
}
