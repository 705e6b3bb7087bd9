/** Health, readiness and metrics endpoints; the audit archive's background work. */
export { OpsModule } from './ops.module';
export { HistoryArchiveService } from './application/history-archive.service';
