import { eventTypes } from '../events/event-type-registry';
import type { FeedReader, Subscription } from '../event-store/event-store.port';
import type { Checkpoints } from './checkpoints';
import type { Reactor } from './projection';

/** Events per page when a reactor catches up on its own event types. */
const TYPE_PAGE = 1000;

/** A reactor's checkpoints carry this fixed version: reactors are never rebuilt. */
const REACTOR_VERSION = 1;
/**
 * How far a reactor's stored checkpoint may trail its position through batches that held none of its
 * types (saved anyway past this): after a crash those are read again and skipped, so a commit that
 * concerns no reactor (most of them) costs none a write.
 */
const UNSAVED_POSITIONS = 1000;

export type WorkerStatus = 'idle' | 'running' | 'failed' | 'stopped';

/**
 * Runs one reactor: from its checkpoint it catches up by type-indexed reads (only the types it
 * handles, in feed order), then tails the feed live. It checkpoints once per batch that held any of
 * its types (and at least every UNSAVED_POSITIONS): after a crash the batch is handed again, which
 * the reactor's idempotent commands absorb (at least once).
 * Reactors tail on their own, not in a projection group: they are async and may lag.
 */
export class ReactorWorker {
  readonly kind = 'reactor';
  position: number;
  status: WorkerStatus = 'running';
  error?: string;
  private stopping = false;
  private subscription?: Subscription;
  private readonly done: Promise<void>;

  constructor(
    private readonly reactor: Reactor,
    private readonly store: FeedReader,
    private readonly checkpoints: Checkpoints,
    private readonly onFail: (worker: ReactorWorker, error: unknown) => void,
    /** Called after each checkpoint (caught up, or a batch handled). */
    private readonly onProgress: (worker: ReactorWorker) => void = () => undefined,
  ) {
    let from = checkpoints.get(reactor.name, REACTOR_VERSION);
    if (from < 0) {
      // A reactor without a checkpoint replays from the start; its commands are idempotent, so
      // history that was already acted on produces no new events.
      from = 0;
      checkpoints.save(reactor.name, REACTOR_VERSION, 0);
    }
    this.position = from;
    this.done = this.run();
  }

  get name(): string {
    return this.reactor.name;
  }

  private async run(): Promise<void> {
    const wanted = new Set<string>(this.reactor.handles);
    try {
      await this.catchUpByType();
      if (this.stopping) return;
      this.onProgress(this);
      const subscription = this.store.subscribeToAll(this.position);
      this.subscription = subscription;
      let saved = this.position;
      for await (const batch of subscription) {
        let handled = false;
        for (const e of batch) {
          if (!wanted.has(e.type)) continue;
          await this.reactor.handle(eventTypes.decode(e));
          handled = true;
        }
        this.position = batch[batch.length - 1]!.position;
        if (handled || this.position - saved >= UNSAVED_POSITIONS) {
          this.checkpoints.save(this.reactor.name, REACTOR_VERSION, this.position);
          saved = this.position;
        }
        this.onProgress(this);
      }
      if (this.position > saved) this.checkpoints.save(this.reactor.name, REACTOR_VERSION, this.position);
      if (this.status === 'running') this.status = 'stopped';
    } catch (error) {
      this.onFail(this, error);
    }
  }

  /**
   * Hands the reactor the events of its types up to the current head, in feed order: one read of
   * all its types per page (one pass over the feed, not one per type: on EventStoreDB each typed
   * read pages through $all client-side).
   */
  private async catchUpByType(): Promise<void> {
    const head = await this.store.headPosition();
    if (head <= this.position) return;
    let handled = 0;
    while (!this.stopping) {
      const page = await this.store.readAll({ after: this.position, limit: TYPE_PAGE, types: this.reactor.handles });
      let last = false;
      for (const event of page) {
        if (event.position > head) {
          last = true;
          break;
        }
        await this.reactor.handle(eventTypes.decode(event));
        this.position = event.position;
        if (++handled % TYPE_PAGE === 0) this.checkpoints.save(this.reactor.name, REACTOR_VERSION, this.position);
        if (this.stopping) return;
      }
      if (last || page.length < TYPE_PAGE) break;
    }
    if (this.stopping) return;
    this.position = head;
    this.checkpoints.save(this.reactor.name, REACTOR_VERSION, head);
  }

  async stop(): Promise<void> {
    if (this.status === 'running') this.status = 'stopped';
    this.stopping = true;
    this.subscription?.close();
    await this.done;
  }
}
