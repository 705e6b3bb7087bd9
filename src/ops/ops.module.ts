import { MetricsAuthentication } from './metrics-authentication';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { RecordArchivedHistoryHandler } from './application/commands/record-archived-history';
import { HistoryArchiveService } from './application/history-archive.service';
import { opsEvents } from './domain/ops-events';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

@Module(
  EventSourcingModule.forFeature({
    events: opsEvents,
    commandHandlers: [RecordArchivedHistoryHandler],
    imports: [TerminusModule.forRoot({ logger: false })],
    controllers: [HealthController, MetricsController],
    providers: [HistoryArchiveService, MetricsAuthentication],
    exports: [HistoryArchiveService],
  }),
)
export class OpsModule {}
