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
  /**
   * The service runs on the system clock, which the thread reads itself; any other clock (a test's)
   * lives on the API's thread and is asked there.
   */
  systemClock: boolean;
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

/**
 * What the dispatcher needs beyond its outbox: its appends, the clocks and the client secrets. On the
 * delivery thread these are read there (the system clock, the installs' offsets from its own feed, the
 * secrets cached until an event changes them); the API's thread is asked only for what only it holds
 * (a test's clock, a secret not yet cached): each answer from there is a turn of the API's event loop.
 */
export interface DispatcherBridge {
  execute(command: DispatcherCommand): Promise<{ position: number } | DispatchLeaseAnswer>;
  /** The service's time (epoch ms). */
  now(): Promise<number>;
  /** How far (ms) the install's clock runs ahead of the service's (the install-clock control). */
  installOffsetMs(appId: number, hubId: number): number;
  /** The app's client secret to sign its deliveries with (null: they go unsigned). */
  secret(appId: number): Promise<string | null>;
  log(level: 'log' | 'warn' | 'error', message: string): void;
}

/** The delivery log's reads, asked of the delivery thread; `reached`: a feed position the answer must include. */
export type OutboxRead =
  | { kind: 'deliveries'; appId: number; filter: DeliveryFilter; reached: number }
  | { kind: 'delivery'; appId: number; eventId: string; reached: number };
