import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { join } from 'node:path';
import type { MessagePort, Worker } from 'node:worker_threads';
import { CLOCK, type Clock, systemClock } from '../../platform/clock';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { Metrics } from '../../platform/metrics/metrics';
import type { DomainEvent } from '../../platform/events/envelope';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Reactor } from '../../platform/projections/projection';
import { ProjectionRunner, type ProjectionStatus } from '../../platform/projections/projection-runner';
import { startModuleThread } from '../../platform/threads/module-thread';
import type { ThreadPriority } from '../../platform/threads/thread-priority';
import { ThreadRpc } from '../../platform/threads/thread-rpc';
import type { DeliveryFilter, DeliveryView } from '../application/outbox-queries';
import { WebhookSigningSecrets } from '../application/signing-secrets';
import { WebhooksQueries } from '../application/webhooks.queries';
import { WebhooksEventType } from '../domain/webhook-events';
import { WebhookInstallClocksProjection } from '../projections/webhook-install-clocks.projection';
import { WebhookOutboxProjection } from '../projections/webhook-outbox.projection';
import { DISPATCHER_EVENT_TYPES } from '../application/webhook-dispatcher';
import type { DeliveryThreadData, OutboxRead } from './thread-protocol';

/** After the thread died unexpectedly, how long before it is started again: doubled each time, up to a minute. */
const RESTART_AFTER_MS = 1000;
const RESTART_AFTER_MAX_MS = 60_000;

/**
 * The webhooks' delivery thread, from the API's side (docs/webhooks.md "Where the work runs"): the
 * outbox read model and the dispatcher run in a worker thread of their own (delivery-thread.entry.ts),
 * so what a delivered item costs is not spent on the event loop that answers the API. This side
 * starts it once an app has webhook settings (a service without webhooks never pays for it), tells
 * it of each SQLite commit (a shared counter), gives it a port to the store's writer thread (SQLite:
 * the thread appends its attempts, leases and pruning itself), answers what only this thread holds
 * (a test's clock; the client secrets, which the thread keeps until an event changes them), and asks
 * it for the delivery log.
 */
@Injectable()
export class DeliveryThread implements Reactor, OnApplicationBootstrap, OnModuleDestroy {
  readonly name = 'webhooks-delivery-thread';
  readonly handles = [WebhooksEventType.SettingsConfigured];
  /** What the thread's outbox and dispatcher read stays in the live store (the archiver leaves it). */
  readonly keepsLive = [
    ...new Set([
      ...new WebhookOutboxProjection().handles,
      ...new WebhookInstallClocksProjection().handles,
      ...DISPATCHER_EVENT_TYPES,
    ]),
  ];
  private readonly logger = new Logger('Webhooks');
  private worker: Worker | null = null;
  private rpc: ThreadRpc | null = null;
  private started: Promise<void> | null = null;
  private threadPriority: ThreadPriority | null = null;
  private stopCommits: (() => void) | null = null;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private restartAfterMs = RESTART_AFTER_MS;
  /**
   * The thread's workers as it last reported them, listed by the API's runner (so in /health/ready) as
   * reactors: they trail the feed by design, and requests never wait for them. Failed while the thread
   * is down.
   */
  private threadWorkers: ProjectionStatus[] = [];

  constructor(
    private readonly runner: ProjectionRunner,
    private readonly queries: WebhooksQueries,
    private readonly secrets: WebhookSigningSecrets,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    runner.registerExternal(() => this.threadWorkers);
  }

  handle(_event: Recorded<DomainEvent>): Promise<void> {
    this.ensureStarted();
    return Promise.resolve();
  }

  onApplicationBootstrap(): void {
    void this.afterStart();
  }

  /**
   * Once the read models hold the history: seals made with an older signing key renewed, and the
   * thread started if any app has settings.
   */
  private async afterStart(): Promise<void> {
    try {
      // No deadline: a long catch-up at start must not leave the deliveries unstarted.
      await this.runner.waitForHead(null);
      if (this.config.webhooks.enabled) await this.secrets.resealStale();
      if (this.queries.configuredAppIds().length > 0) this.ensureStarted();
    } catch (error) {
      this.logger.error(`webhooks start-up failed: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const { worker, rpc } = this;
    if (!worker || !rpc) return;
    await this.started;
    // The thread releases its leases (appended here) and closes its file before it is ended.
    await rpc.call('stop').catch((error: unknown) => {
      this.logger.error(`the delivery thread did not stop cleanly: ${(error as Error).message}`);
    });
    this.stopCommits?.();
    rpc.close(new Error('the delivery thread stopped'));
    this.worker = null;
    this.threadWorkers = [];
    await worker.terminate();
  }

  /** The delivery log's page of an app's items, as of everything the store held when asked. */
  async deliveries(appId: number, filter: DeliveryFilter): Promise<{ results: DeliveryView[]; next: number | null }> {
    return this.read({ kind: 'deliveries', appId, filter, reached: await this.store.headPosition() });
  }

  /** One item of the log; `reached`: a position the answer must include (a redelivery just appended). */
  async delivery(appId: number, eventId: string, reached?: number): Promise<DeliveryView | null> {
    return this.read({ kind: 'delivery', appId, eventId, reached: reached ?? (await this.store.headPosition()) });
  }

  /** Empties the outbox and replays the history into it (`projections:rebuild webhooks-outbox`). */
  async rebuild(): Promise<void> {
    await this.call('rebuild');
  }

  /** The thread's CPU priority as it set it at its last start (null before). */
  get priority(): ThreadPriority | null {
    return this.threadPriority;
  }

  /** The thread's projection and dispatcher, as /health/ready lists the API thread's (empty until started). */
  async status(): Promise<ProjectionStatus[]> {
    return this.worker ? this.call<ProjectionStatus[]>('status') : [];
  }

  private read<T>(read: OutboxRead): Promise<T> {
    return this.call<T>('read', read);
  }

  private async call<T>(op: string, payload?: unknown): Promise<T> {
    this.ensureStarted();
    await this.started;
    if (!this.rpc) throw new Error('the webhooks delivery thread is not running');
    return this.rpc.call<T>(op, payload);
  }

  /** Starts the thread unless it runs (idempotent). */
  private ensureStarted(): void {
    if (this.worker || this.stopping) return;
    const feed = this.store.feedSource;
    if (!feed) {
      this.logger.error('this event store offers no feed to another thread: webhooks are not delivered');
      return;
    }
    const commits = feed.kind === 'sqlite' ? new Int32Array(new SharedArrayBuffer(4)) : null;
    let writer: MessagePort | null;
    try {
      writer = feed.kind === 'sqlite' ? (this.store.openWriterPort?.() ?? null) : null;
    } catch (error) {
      this.logger.error(`the delivery thread cannot append: ${(error as Error).message}`);
      return;
    }
    if (feed.kind === 'sqlite' && !writer) {
      this.logger.error('this event store offers no writer port to another thread: webhooks are not delivered');
      return;
    }
    const data: DeliveryThreadData = {
      feed,
      outboxFile: join(this.config.dataDir, 'webhooks-outbox.sqlite'),
      webhooks: this.config.webhooks,
      commits: commits ? (commits.buffer as SharedArrayBuffer) : null,
      writer,
      systemClock: this.clock === systemClock,
    };
    const worker = startModuleThread(require.resolve('./delivery-thread.entry'), data, {
      name: 'webhooks-delivery',
      transferList: writer ? [writer] : [],
    });
    this.worker = worker;
    let ready: () => void = () => undefined;
    this.started = new Promise<void>((resolve) => (ready = resolve));
    const rpc = new ThreadRpc(worker, {
      started: (priority: ThreadPriority) => {
        this.restartAfterMs = RESTART_AFTER_MS;
        this.threadPriority = priority;
        this.logger.log(
          'skipped' in priority
            ? `delivery thread started at the API's CPU priority: ${priority.skipped}`
            : `delivery thread started at nice ${priority.nice} (thread ${priority.tid}), below the API's event loop`,
        );
        ready();
      },
      now: () => {
        this.metrics.deliveryThreadQuestions.inc({ question: 'now' });
        return this.clock.now();
      },
      // `reached`: a rotation or re-seal the thread saw; the answer waits until the read models hold it.
      secret: async ({ appId, reached }: { appId: number; reached: number }) => {
        this.metrics.deliveryThreadQuestions.inc({ question: 'secret' });
        if (reached > 0) await this.runner.readModelsReached(reached);
        return this.secrets.secretFor(appId);
      },
      status: (workers: ProjectionStatus[]) => {
        if (this.worker === worker) this.threadWorkers = workers.map((w) => ({ ...w, kind: 'reactor' as const }));
      },
      log: ({ level, message }: { level: 'log' | 'warn' | 'error'; message: string }) => this.logger[level](message),
    });
    this.rpc = rpc;
    this.stopCommits = commits
      ? (this.store.onCommitted?.(() => {
          Atomics.add(commits, 0, 1);
          Atomics.notify(commits, 0);
        }) ?? null)
      : null;
    worker.on('error', (error) => this.logger.error(`the delivery thread failed: ${error.message}`));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return; // stopped on purpose
      const reason = `the delivery thread exited with code ${code}`;
      this.threadWorkers = this.threadWorkers.map((w) => ({ ...w, status: 'failed' as const, error: reason }));
      this.stopCommits?.();
      rpc.close(new Error(reason));
      ready();
      this.worker = null;
      this.rpc = null;
      if (this.stopping) return;
      this.logger.error(`the delivery thread exited with code ${code}: starting it again in ${this.restartAfterMs} ms`);
      this.restartTimer = setTimeout(() => this.ensureStarted(), this.restartAfterMs);
      this.restartAfterMs = Math.min(this.restartAfterMs * 2, RESTART_AFTER_MAX_MS);
      this.restartTimer.unref();
    });
  }
}
