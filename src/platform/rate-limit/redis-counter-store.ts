import { Redis, ReplyError } from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import type { Clock, MonotonicClock } from '../clock';
import {
  type CounterStore,
  type FailureLock,
  type FailureReservation,
  refusedWhileUnreachable,
  type RollingWindow,
  type RollingWindowOptions,
} from './counter-store';
import type { FailureBackoffOptions } from './failure-backoff';
import { MemoryRollingWindow } from './memory-counter-store';
import { FAILURE_LOCK_LUA, ROLLING_WINDOW_LUA } from './redis-scripts';
import type { RateLimitDecision } from './sliding-window-log';

export interface RedisCounterStoreOptions {
  /** Key prefix, so several deployments (or tests) can share one Redis. */
  prefix?: string;
  /** Time for the scripts; unset: Redis's own clock (one clock for every instance). */
  clock?: Clock;
  /** Longest wait for Redis's answer before the store counts as unreachable. */
  commandTimeoutMs?: number;
  /** Told of each failed operation (logs, metrics); never given a key. */
  onError?: (counter: string, error: Error) => void;
  /** How often the open breaker pings Redis to find it answering again. */
  breakerProbeMs?: number;
  /** Told when the breaker opens (Redis stopped answering: fail fast) and closes (it answers again). */
  onBreaker?: (open: boolean) => void;
}

/** An operation not sent: the breaker is open (Redis did not answer in time; see RedisCounterStore). */
export class CounterStoreBreakerOpen extends Error {
  constructor() {
    super('Redis did not answer in time: failing fast until it answers again');
    this.name = 'CounterStoreBreakerOpen';
  }
}

/** A reservation lapses after this: the longest a password check may take (the scrypt queue is bounded). */
const RESERVATION_MS = 60_000;

type ScriptReply = [number, number, number?];
interface ScriptCommands {
  hsRollingWindow(key: string, ...args: Array<string | number>): Promise<ScriptReply>;
  hsFailureLock(key: string, pendingKey: string, ...args: Array<string | number>): Promise<ScriptReply>;
}

/**
 * The shared counter store on Redis (`COUNTER_STORE_URL`). Every decision is one Lua script, atomic
 * in Redis, so several instances count against one budget. Keys are hashes of the counted names
 * (e-mails, addresses, client ids never stored in Redis). When Redis cannot answer within the
 * timeout, quotas count in this instance's memory and security throttles refuse (fail closed); see
 * `RollingWindowOptions.whenUnreachable`.
 *
 * A circuit breaker keeps a hung Redis (connected, answering nothing) from adding the whole command
 * timeout to every counted request: the first operation that fails other than by Redis's own error
 * reply opens it, and until a ping (every `breakerProbeMs`, in the background) is answered, every
 * operation fails at once, to the same fallbacks, without being sent.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis';
  private readonly redis: Redis & ScriptCommands;
  private readonly prefix: string;
  /** Unique members of the sorted sets: this process's random id and a sequence. */
  private readonly memberPrefix = randomBytes(6).toString('base64url');
  private sequence = 0;
  /** The breaker: open while Redis is not answering (operations fail fast); the probe while it is. */
  private breakerOpen = false;
  private probe: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    url: string,
    private readonly options: RedisCounterStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'hubspot-svc:counters:';
    const timeout = options.commandTimeoutMs ?? 1000;
    this.redis = new Redis(url, {
      lazyConnect: true,
      // Fail fast while disconnected instead of queueing: a request must not wait for Redis to return.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeout,
      connectTimeout: Math.max(timeout, 2000),
      retryStrategy: (times) => Math.min(100 * times, 2000),
    }) as Redis & ScriptCommands;
    this.redis.defineCommand('hsRollingWindow', { numberOfKeys: 1, lua: ROLLING_WINDOW_LUA });
    this.redis.defineCommand('hsFailureLock', { numberOfKeys: 2, lua: FAILURE_LOCK_LUA });
    // Errors reach the operations that fail; the event would otherwise be unhandled.
    this.redis.on('error', () => {});
    // A connection (re)made and checked ready: Redis answers, the breaker need not wait for its probe.
    this.redis.on('ready', () => this.closeBreaker());
  }

  /** Connects, waiting at most `ms`; false when Redis could not be reached (it keeps trying). */
  async connect(ms = 5000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    if (this.redis.status === 'wait') void this.redis.connect().catch(() => {});
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), ms);
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => finish(true);
      this.redis.on('ready', onReady);
    });
  }

  get status(): string {
    return this.redis.status;
  }

  rollingWindow(name: string, options: RollingWindowOptions): RollingWindow {
    return new RedisRollingWindow(this, name, options);
  }

  /** Timed by Redis's clock (or the test clock), so the local monotonic clock is not used. */
  failureLock(name: string, options: FailureBackoffOptions, _localClock?: MonotonicClock): FailureLock {
    return new RedisFailureLock(this, name, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probe) clearTimeout(this.probe);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** True while Redis is not answering and operations fail fast. */
  get failingFast(): boolean {
    return this.breakerOpen;
  }

  /** Runs a Redis operation through the breaker: at once refused while open; opens it on a failure. */
  private async guarded<T>(operation: () => Promise<T>): Promise<T> {
    if (this.breakerOpen) throw new CounterStoreBreakerOpen();
    try {
      return await operation();
    } catch (error) {
      // Redis's own error reply (a script error) means Redis answered: no reason to stop asking it.
      if (!(error instanceof ReplyError)) this.openBreaker();
      throw error;
    }
  }

  private openBreaker(): void {
    if (this.breakerOpen || this.closed) return;
    this.breakerOpen = true;
    this.options.onBreaker?.(true);
    this.scheduleProbe();
  }

  private closeBreaker(): void {
    if (!this.breakerOpen || this.closed) return;
    this.breakerOpen = false;
    if (this.probe) clearTimeout(this.probe);
    this.probe = null;
    this.options.onBreaker?.(false);
  }

  private scheduleProbe(): void {
    this.probe = setTimeout(() => {
      this.probe = null;
      this.redis.ping().then(
        () => this.closeBreaker(),
        () => {
          if (!this.closed) this.scheduleProbe();
        },
      );
    }, this.options.breakerProbeMs ?? 1000);
    this.probe.unref();
  }

  /** @internal */ key(name: string, counted: string): string {
    const digest = createHash('sha256').update(name).update('\0').update(counted).digest('base64url');
    // The braces (a hash tag) keep a counter and its reservations in one Redis Cluster slot.
    return `${this.prefix}${name}:{${digest.slice(0, 27)}}`;
  }

  /** @internal */ member(): string {
    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    return `${this.memberPrefix}${this.sequence.toString(36)}`;
  }

  /** @internal */ now(): string {
    return this.options.clock ? String(this.options.clock.now()) : '';
  }

  /** @internal */ rolling(key: string, op: string, windowMs: number, max: number): Promise<ScriptReply> {
    return this.guarded(() =>
      this.redis.hsRollingWindow(key, op, this.now(), windowMs, max, op === 'check' ? '' : this.member()),
    );
  }

  /** @internal */ failure(key: string, args: Array<string | number>): Promise<ScriptReply> {
    return this.guarded(() => this.redis.hsFailureLock(key, `${key}:r`, args[0]!, this.now(), ...args.slice(1)));
  }

  /** @internal */ failed(counter: string, error: unknown): void {
    this.options.onError?.(counter, error instanceof Error ? error : new Error(String(error)));
  }
}

class RedisRollingWindow implements RollingWindow {
  /** This instance's own window, used while Redis is unreachable (count-locally only). */
  private readonly local: MemoryRollingWindow | null;

  constructor(
    private readonly store: RedisCounterStore,
    private readonly name: string,
    readonly options: RollingWindowOptions,
  ) {
    this.local = options.whenUnreachable === 'count-locally' ? new MemoryRollingWindow(options) : null;
  }

  check(key: string): Promise<RateLimitDecision> {
    return this.run('check', key, (local) => local.check(key));
  }

  tryAcquire(key: string): Promise<RateLimitDecision> {
    return this.run('acquire', key, (local) => local.tryAcquire(key));
  }

  checkThenRecord(key: string): Promise<RateLimitDecision> {
    return this.run('record', key, (local) => local.checkThenRecord(key));
  }

  private async run(
    op: string,
    key: string,
    fallback: (local: MemoryRollingWindow) => Promise<RateLimitDecision>,
  ): Promise<RateLimitDecision> {
    const { windowMs, max } = this.options;
    try {
      const [allowed, count, retryAfterMs] = await this.store.rolling(
        this.store.key(this.name, key),
        op,
        windowMs,
        max,
      );
      const ok = allowed === 1;
      return { allowed: ok, limit: max, remaining: ok ? max - count : 0, windowMs, retryAfterMs: retryAfterMs ?? 0 };
    } catch (error) {
      this.store.failed(this.name, error);
      return this.local ? fallback(this.local) : refusedWhileUnreachable(this.options);
    }
  }
}

class RedisFailureLock implements FailureLock {
  constructor(
    private readonly store: RedisCounterStore,
    private readonly name: string,
    private readonly options: FailureBackoffOptions,
  ) {}

  async reserve(key: string): Promise<FailureReservation> {
    const ticket = this.store.member();
    try {
      const [allowed, retryAfterMs] = await this.run('reserve', key, ticket);
      return allowed === 1 ? { allowed: true, ticket } : { allowed: false, retryAfterMs };
    } catch (error) {
      this.store.failed(this.name, error);
      // Fail closed: no password check without a counted reservation.
      return { allowed: false, unavailable: true };
    }
  }

  release(key: string, ticket: string): Promise<void> {
    return this.settle('release', key, ticket);
  }

  succeeded(key: string, ticket: string): Promise<void> {
    return this.settle('succeeded', key, ticket);
  }

  failed(key: string, ticket: string): Promise<void> {
    return this.settle('failed', key, ticket);
  }

  /** A settlement lost to an outage leaves the reservation to lapse: a failure until then. */
  private async settle(op: string, key: string, ticket: string): Promise<void> {
    try {
      await this.run(op, key, ticket);
    } catch (error) {
      this.store.failed(this.name, error);
    }
  }

  private run(op: string, key: string, ticket: string): Promise<ScriptReply> {
    const o = this.options;
    return this.store.failure(this.store.key(this.name, key), [
      op,
      o.free,
      o.baseLockMs,
      o.maxLockMs,
      o.forgetAfterMs,
      o.resetOnSuccess ? 1 : 0,
      RESERVATION_MS,
      ticket,
    ]);
  }
}
