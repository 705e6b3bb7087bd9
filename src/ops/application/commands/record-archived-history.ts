import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { ArchivedBatch } from '../../../platform/archive/history-archiver';
import type { CommandContext } from '../../../platform/events/envelope';
import { historyArchiveDecider } from '../../domain/history-archive.decider';
import { historyArchiveStream } from '../../domain/ops-events';

/** Records an archive batch (ops.HistoryArchived) and removes its events from the live store (the store's retention). */
export class RecordArchivedHistory extends Command<void> {
  constructor(
    readonly batch: ArchivedBatch,
    readonly retentionDays: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordArchivedHistory)
export class RecordArchivedHistoryHandler implements ICommandHandler<RecordArchivedHistory> {
  constructor(
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ batch, retentionDays, context }: RecordArchivedHistory): Promise<void> {
    const { file, segment } = batch;
    const stream = historyArchiveStream(file);
    const { state, expected } = await this.streams.load(stream, historyArchiveDecider);
    const events = historyArchiveDecider.decide(
      { kind: 'RecordArchivedHistory', batch: { file, ...segment }, retentionDays, now: this.clock.now() },
      state,
    );
    // Recorded already: its events were removed before or with that record.
    if (events.length === 0) return;
    await this.streams.appendRemovingArchived(stream, events, expected, context, batch);
  }
}
