import type Database from 'better-sqlite3';
import { HubSpotError } from '../errors/hubspot-error';
import type { RecordedEvent } from '../events/envelope';
import type { EventStore, Subscription } from '../event-store/event-store.port';
import { eventTypes } from '../events/event-type-registry';
import type { Projection, Reactor } from './projection';

type Status = 'idle' | 'running' | 'failed' | 'stopped';

interface Worker {
  name: string;
  kind: 'projection' | 'reactor';
  position: number;
  status: Status;
  error?: string;
}

interface ProjectionWorker extends Worker {
  kind: 'projection';
  /** Applies the events of a batch after `position` and saves the checkpoint; returns the new position. */
  applyBatch: (batch: RecordedEvent[]) => number;
  group: ProjectionGroup;
}

/** Projections that tail the feed from the same position share one subscription. */
interface ProjectionGroup {
  members: Set<ProjectionWorker>;
  subscription: Subscription;
  done: Promise<void>;
}

interface ReactorWorker extends Worker {
  kind: 'reactor';
  stopping: boolean;
  subscription?: Subscription;
  done: Promise<void>;
}

export interface ProjectionStatus {
  name: string;
  kind: 'projection' | 'reactor';
  position: number;
  status: Status;
  error?: string;
}

export interface RunnerOptions {
  /** How long `waitFor` waits for the read models before giving up with a 503 (default 10 s). */
  waitTimeoutMs?: number;
}

/** A request whose own events are not in the read models within the deadline: HubSpot's 503 body. */
export function readModelsBehind(position: number, timeoutMs: number): HubSpotError {
  return new HubSpotError(
    503,
    'SERVICE_UNAVAILABLE',
    `The read models did not reach position ${position} within ${timeoutMs} ms. Please retry.`,
  );
}

export interface RunnerLogger {
  log(message: string): void;
  error(message: string): void;
}

interface Waiter {
  position: number;
  resolve: () => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Events per page when a reactor catches up on its own event types. */
const TYPE_PAGE = 1000;

/**
 * Tails the global feed for every projection and reactor from its stored checkpoint: catch-up,
 * then live, strictly in order. `waitFor(position)` gives a request read-your-writes: a command's
 * handler waits until the read models hold its own events before answering.
 *
 * Projections that start from the same checkpoint (the usual case: all at the head, or all at
 * zero on a fresh read-model file) share one subscription, so each event is read and parsed once
 * and every batch is applied to all of them in one transaction; each projection still applies in
 * its own savepoint with its own checkpoint, so one that throws fails alone. Reactors tail on
 * their own (they are async and may lag) and checkpoint once per batch (at-least-once either way).
 */
export class ProjectionRunner {
  private readonly projections = new Map<string, Projection>();
  private readonly reactors = new Map<string, Reactor>();
  private readonly workers = new Map<string, ProjectionWorker | ReactorWorker>();
  private waiters: Waiter[] = [];
  private readonly waitTimeoutMs: number;
  private started = false;
  private statements: { get: Database.Statement; save: Database.Statement } | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database.Database,
    private readonly logger: RunnerLogger = { log: () => undefined, error: () => undefined },
    options: RunnerOptions = {},
  ) {
    this.waitTimeoutMs = options.waitTimeoutMs ?? 10_000;
  }

  register(projection: Projection): void {
    if (this.projections.has(projection.name) || this.reactors.has(projection.name)) {
      throw new Error(`projection ${projection.name} registered twice`);
    }
    this.projections.set(projection.name, projection);
    if (this.started) this.startProjections([projection]);
  }

  registerReactor(reactor: Reactor): void {
    if (this.projections.has(reactor.name) || this.reactors.has(reactor.name)) {
      throw new Error(`reactor ${reactor.name} registered twice`);
    }
    this.reactors.set(reactor.name, reactor);
    if (this.started) this.startReactor(reactor);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.startProjections([...this.projections.values()]);
    for (const r of this.reactors.values()) this.startReactor(r);
  }

  /** Prepared once: a reactor saves its checkpoint after every batch. */
  private get stmts(): { get: Database.Statement; save: Database.Statement } {
    return (this.statements ??= {
      get: this.db.prepare('SELECT version, position FROM projection_checkpoints WHERE name = ?'),
      save: this.db.prepare(
        `INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`,
      ),
    });
  }

  private checkpoint(name: string, version: number): number {
    const row = this.stmts.get.get(name) as { version: number; position: number } | undefined;
    if (row && row.version === version) return row.position;
    return -1; // unknown or outdated: rebuild
  }

  private saveCheckpoint(name: string, version: number, position: number): void {
    this.stmts.save.run(name, version, position);
  }

  /** Sets up each projection at its checkpoint; those at the same position tail the feed together. */
  private startProjections(projections: Projection[]): void {
    const byPosition = new Map<number, ProjectionWorker[]>();
    for (const p of projections) {
      const worker = this.prepareProjection(p);
      const same = byPosition.get(worker.position) ?? [];
      same.push(worker);
      byPosition.set(worker.position, same);
    }
    for (const [from, members] of byPosition) this.runGroup(from, members);
  }

  private prepareProjection(p: Projection): ProjectionWorker {
    p.setup(this.db);
    let from = this.checkpoint(p.name, p.version);
    if (from < 0) {
      this.db.transaction(() => {
        p.reset(this.db);
        this.saveCheckpoint(p.name, p.version, 0);
      })();
      from = 0;
    }
    const worker = { name: p.name, kind: 'projection', position: from, status: 'running' } as ProjectionWorker;
    const handles = new Set<string>(p.handles);
    // Called inside the group's transaction, so this is a savepoint: a throw undoes this projection only.
    worker.applyBatch = this.db.transaction((batch: RecordedEvent[]): number => {
      const last = batch[batch.length - 1]!.position;
      if (last <= worker.position) return worker.position;
      for (const e of batch) {
        if (e.position > worker.position && handles.has(e.type)) p.apply(eventTypes.decode(e), this.db);
      }
      this.saveCheckpoint(p.name, p.version, last);
      return last;
    });
    this.workers.set(p.name, worker);
    return worker;
  }

  private runGroup(from: number, members: ProjectionWorker[]): void {
    const subscription = this.store.subscribeToAll(from);
    const group: ProjectionGroup = { members: new Set(members), subscription, done: Promise.resolve() };
    for (const m of members) m.group = group;
    const applyToAll = this.db.transaction((batch: RecordedEvent[]) => {
      const outcomes: Array<
        { worker: ProjectionWorker; position: number } | { worker: ProjectionWorker; error: unknown }
      > = [];
      for (const worker of group.members) {
        try {
          outcomes.push({ worker, position: worker.applyBatch(batch) });
        } catch (error) {
          outcomes.push({ worker, error });
        }
      }
      return outcomes;
    });
    group.done = (async () => {
      try {
        for await (const batch of subscription) {
          if (group.members.size === 0) break;
          // Positions move only once the transaction holding every projection's batch committed.
          for (const outcome of applyToAll(batch)) {
            if ('error' in outcome) this.fail(outcome.worker, outcome.error);
            else outcome.worker.position = outcome.position;
          }
          this.settleWaiters();
          if (group.members.size === 0) break;
        }
      } catch (error) {
        for (const worker of [...group.members]) this.fail(worker, error);
      } finally {
        subscription.close();
      }
      for (const worker of group.members) if (worker.status === 'running') worker.status = 'stopped';
    })();
  }

  private fail(worker: ProjectionWorker | ReactorWorker, error: unknown): void {
    worker.status = 'failed';
    worker.error = error instanceof Error ? error.message : String(error);
    if (worker.kind === 'projection') worker.group.members.delete(worker);
    this.logger.error(`${worker.kind} ${worker.name} failed at position ${worker.position}: ${worker.error}`);
    this.settleWaiters();
  }

  private startReactor(r: Reactor): void {
    let from = this.checkpoint(r.name, 1);
    if (from < 0) {
      // A reactor without a checkpoint replays from the start; its commands are idempotent, so
      // history that was already acted on produces no new events.
      from = 0;
      this.saveCheckpoint(r.name, 1, 0);
    }
    const worker = {
      name: r.name,
      kind: 'reactor',
      position: from,
      status: 'running',
      stopping: false,
    } as ReactorWorker;
    this.workers.set(r.name, worker);
    const wanted = new Set<string>(r.handles);
    worker.done = (async () => {
      try {
        await this.catchUpByType(r, worker, r.handles);
        if (worker.stopping) return;
        const subscription = this.store.subscribeToAll(worker.position);
        worker.subscription = subscription;
        for await (const batch of subscription) {
          for (const e of batch) if (wanted.has(e.type)) await r.handle(eventTypes.decode(e));
          // Once per batch: after a crash the batch is handed again, which idempotent commands absorb.
          worker.position = batch[batch.length - 1]!.position;
          this.saveCheckpoint(r.name, 1, worker.position);
        }
        if (worker.status === 'running') worker.status = 'stopped';
      } catch (error) {
        this.fail(worker, error);
      }
    })();
  }

  /** Hands a reactor the events of its types up to the current head, in feed order, by type-indexed reads. */
  private async catchUpByType(r: Reactor, worker: ReactorWorker, types: readonly string[]): Promise<void> {
    const head = await this.store.headPosition();
    if (head <= worker.position) return;
    const cursors = types.map((type) => ({ type, after: worker.position, page: [] as RecordedEvent[], done: false }));
    const fill = async (c: (typeof cursors)[number]) => {
      if (c.page.length > 0 || c.done) return;
      c.page = (await this.store.readAll({ after: c.after, limit: TYPE_PAGE, type: c.type })).filter(
        (e) => e.position <= head,
      );
      if (c.page.length === 0) c.done = true;
      else c.after = c.page[c.page.length - 1]!.position;
    };
    let handled = 0;
    while (!worker.stopping) {
      await Promise.all(cursors.map(fill));
      let next: (typeof cursors)[number] | null = null;
      for (const c of cursors)
        if (c.page.length > 0 && (!next || c.page[0]!.position < next.page[0]!.position)) next = c;
      if (!next) break;
      const event = next.page.shift()!;
      await r.handle(eventTypes.decode(event));
      worker.position = event.position;
      if (++handled % TYPE_PAGE === 0) this.saveCheckpoint(r.name, 1, worker.position);
    }
    if (worker.stopping) return;
    worker.position = head;
    this.saveCheckpoint(r.name, 1, head);
  }

  /** Lowest position every projection has reached (reactors excluded: they may lag by design). */
  minPosition(): number {
    let min = Number.MAX_SAFE_INTEGER;
    for (const w of this.workers.values()) if (w.kind === 'projection') min = Math.min(min, w.position);
    return min === Number.MAX_SAFE_INTEGER ? 0 : min;
  }

  private failedProjection(): Worker | undefined {
    for (const w of this.workers.values()) if (w.kind === 'projection' && w.status === 'failed') return w;
    return undefined;
  }

  /**
   * Resolves once every projection has applied the event at `position`; rejects with a 503
   * HubSpotError when that takes longer than the deadline (a stuck or far-behind projection must
   * not hold requests open forever). `timeoutMs` null: no deadline, for background work that
   * must outlast a long catch-up (a rebuild, the migration worker resuming on start).
   */
  waitFor(position: number, timeoutMs: number | null = this.waitTimeoutMs): Promise<void> {
    if (position <= 0 || this.minPosition() >= position) return Promise.resolve();
    const failed = this.failedProjection();
    if (failed) return Promise.reject(new Error(`projection ${failed.name} failed`));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(waiter.timer);
          reject(e);
        },
      };
      if (timeoutMs !== null) {
        waiter.timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(readModelsBehind(position, timeoutMs));
        }, timeoutMs);
        waiter.timer.unref();
      }
      this.waiters.push(waiter);
    });
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const min = this.minPosition();
    const failed = this.failedProjection();
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (min >= w.position) w.resolve();
      else if (failed) w.reject(new Error(`projection ${failed.name} failed`));
      else keep.push(w);
    }
    this.waiters = keep;
  }

  status(): ProjectionStatus[] {
    return [...this.workers.values()].map(({ name, kind, position, status, error }) => ({
      name,
      kind,
      position,
      status,
      ...(error ? { error } : {}),
    }));
  }

  /** Events in the store not yet applied, per projection. */
  async lag(): Promise<Record<string, number>> {
    const head = await this.store.headPosition();
    const out: Record<string, number> = {};
    for (const w of this.workers.values()) out[w.name] = Math.max(0, head - w.position);
    return out;
  }

  /** Empties a projection and replays the whole history into it; resolves when caught up with the head. */
  async rebuild(name: string): Promise<void> {
    const p = this.projections.get(name);
    if (!p) throw new Error(`unknown projection ${name}; known: ${[...this.projections.keys()].join(', ')}`);
    await this.stopWorker(name);
    this.db.transaction(() => {
      p.reset(this.db);
      this.saveCheckpoint(p.name, -1, 0); // forces a reset on start even if we crash mid-rebuild
    })();
    this.startProjections([p]);
    await this.waitFor(await this.store.headPosition(), null);
  }

  projectionNames(): string[] {
    return [...this.projections.keys()];
  }

  private async stopWorker(name: string): Promise<void> {
    const w = this.workers.get(name);
    if (!w) return;
    if (w.status === 'running') w.status = 'stopped';
    if (w.kind === 'projection') {
      // Batches are applied synchronously, so leaving the group between two batches is enough.
      const group = w.group;
      group.members.delete(w);
      if (group.members.size === 0) {
        group.subscription.close();
        await group.done;
      }
    } else {
      w.stopping = true;
      w.subscription?.close();
      await w.done;
    }
    this.workers.delete(name);
  }

  async stop(): Promise<void> {
    for (const name of [...this.workers.keys()]) await this.stopWorker(name);
    for (const w of this.waiters) w.reject(new Error('projection runner stopped'));
    this.waiters = [];
  }
}
