/** The ops module's events other modules may read (the lint allows this file): an archive batch recorded. */
export { OpsEventType, type HistoryArchived } from './domain/ops-events';
