import type { MessagePort } from 'node:worker_threads';
import type { AppConfig } from '../../platform/config/config';
import type { FeedSource } from '../../platform/event-store/event-store.port';
import type { RecordDeliveryAttempt } from '../domain/delivery-records.decider';
import type { ExpectedRevision } from '../../platform/event-store/event-store.port';
import type { DeliveryFilter } from '../application/outbox-queries';

/** What the delivery thread is started with (workerData: plain data only). */
export interface DeliveryThreadData {
  /** Where it reads the feed itself. */
  feed: FeedSource;
  /** Its read model's file (`:memory:` with nothing kept between starts). */
  outboxFile: string;
  webhooks: AppConfig['webhooks'];
  /**
   * SQLite: a counter the API's thread bumps (and notifies) after each commit. Not a message: a
   * postMessage per commit cost the API's event loop more than the rest of a delivery.
   */
  commits: SharedArrayBuffer | null;
  /** SQLite: the port to the store's writer thread its appends go through (transferred; see sqlite-thread-store.ts). */
  writer: MessagePort | null;
}

/**
 * The events the dispatcher records, appended by the delivery thread itself (dispatcher-commands.ts).
 * `now`: the service's time of the decision (a clock reading of the API's thread), the envelope's time.
 */
export type DispatcherCommand = (
  | RecordDeliveryAttempt
  | { type: 'TakeDispatchLease'; appId: number; owner: string; leaseMs: number; expected: ExpectedRevision }
  | { type: 'ReleaseDispatchLease'; appId: number; owner: string; expected: number }
  | { type: 'PruneDeliveries'; appId: number; deliveredBefore: number }
) & { now: number };

/** Appended (the stream's new revision and the event's position), or refused: the stream was at `actual`. */
export type DispatchLeaseAnswer =
  { appended: true; revision: number; position: number } | { appended: false; actual: number | 'no_stream' };

/** The service's clock and the installs' clocks as the API's thread reads them (tests move them there). */
export interface ClockReading {
  /** The service's time (epoch ms). */
  now: number;
  /** Each asked account's install time for the app, in the order asked. */
  installs: number[];
}

/** What the dispatcher needs beyond its outbox: its appends, and what only the API's thread knows. */
export interface DispatcherBridge {
  execute(command: DispatcherCommand): Promise<{ position: number } | DispatchLeaseAnswer>;
  clocks(appId: number, hubIds: readonly number[]): Promise<ClockReading>;
  /**
   * What a request is sent with, in one message (each answer wakes this thread): the service's time
   * and the app's client secret to sign with (null: deliveries go unsigned).
   */
  sending(appId: number): Promise<{ now: number; secret: string | null }>;
  log(level: 'log' | 'warn' | 'error', message: string): void;
}

/** The delivery log's reads, asked of the delivery thread; `reached`: a feed position the answer must include. */
export type OutboxRead =
  | { kind: 'deliveries'; appId: number; filter: DeliveryFilter; reached: number }
  | { kind: 'delivery'; appId: number; eventId: string; reached: number };
