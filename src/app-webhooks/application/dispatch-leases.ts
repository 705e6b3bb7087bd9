import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../platform/config/config';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { ProjectionRunner } from '../../platform/projections/projection-runner';
import type { DispatchLeaseAnswer, DispatcherBridge } from '../delivery-thread/thread-protocol';
import { type LeaseHeld, type LeaseSeen, leaseStep, observe } from '../domain/dispatch-lease';
import type { DispatchLeaseEvent } from '../domain/webhook-events';

/**
 * This instance's side of the dispatch leases (domain/dispatch-lease.ts): which apps it may send for,
 * what it saw of the others' leases (from the feed, and from refused appends), and the appends that
 * take, renew and release. Only on EventStoreDB, the store several instances share: on the embedded
 * store there is one instance, so it sends for every app and writes no lease.
 */
export class DispatchLeases {
  /** Names this process in the lease events (the pid helps an operator find it). */
  readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly enabled: boolean;
  private readonly held = new Map<number, LeaseHeld>();
  private readonly seen = new Map<number, LeaseSeen>();

  constructor(
    private readonly bridge: DispatcherBridge,
    /** The delivery thread's runner (its outbox). */
    private readonly runner: ProjectionRunner,
    /** Only on EventStoreDB (the store several instances share). */
    enabled: boolean,
    private readonly monotonic: { elapsedMs(): number },
    private readonly config: AppConfig['webhooks'],
  ) {
    this.enabled = enabled;
  }

  /** A lease event from the feed: what the others hold; one naming another owner fences this one out. */
  observed(event: Recorded<DispatchLeaseEvent>): void {
    const { appId, owner } = event.data;
    this.seen.set(appId, observe(this.seen.get(appId), event, event.revision, this.monotonic.elapsedMs())!);
    const held = this.held.get(appId);
    if (held && owner !== this.owner && event.revision > held.revision) this.held.delete(appId);
  }

  /**
   * Whether this instance may send `appId`'s due items now (`busy`: it has items due or requests in
   * flight), after renewing or taking the lease as needed. After a take, this instance's read models
   * hold everything before it (the previous owner recorded its attempts before it released).
   */
  async maySend(appId: number, busy: boolean): Promise<boolean> {
    if (!this.enabled) return true;
    const step = leaseStep({
      held: this.held.get(appId) ?? null,
      seen: this.seen.get(appId),
      busy,
      now: this.monotonic.elapsedMs(),
      timing: this.timing(),
    });
    switch (step.kind) {
      case 'send':
        return true;
      case 'wait':
        return false;
      case 'release':
        await this.release(appId, step.expected);
        return false;
      case 'renew':
      case 'take': {
        const took = await this.take(appId, step.expected);
        if (took && step.kind === 'take') await this.runner.readModelsReached(took);
        return took > 0;
      }
    }
  }

  /**
   * Whether a send decided by `maySend` may still start now (the dispatcher starts one request per
   * turn of the event loop): the lease is still this instance's and within its length.
   */
  holds(appId: number): boolean {
    if (!this.enabled) return true;
    const held = this.held.get(appId);
    return held !== undefined && this.monotonic.elapsedMs() - held.renewStartedAt < this.config.leaseMs;
  }

  /** Releases the leases of apps not in `busy` once idle for half a lease (or all, when shutting down). */
  async releaseIdle(busy: ReadonlySet<number>, all = false): Promise<void> {
    for (const [appId, held] of [...this.held]) {
      if (busy.has(appId)) continue;
      if (all) await this.release(appId, held.revision);
      else await this.maySend(appId, false);
    }
  }

  /** The position of the take, or 0 when another instance's append came first. */
  private async take(appId: number, expected: number | 'no_stream'): Promise<number> {
    const startedAt = this.monotonic.elapsedMs();
    const now = await this.bridge.now();
    const answer = (await this.bridge.execute({
      type: 'TakeDispatchLease',
      appId,
      owner: this.owner,
      leaseMs: this.config.leaseMs,
      expected,
      now,
    })) as DispatchLeaseAnswer;
    if (answer.appended) {
      if (!this.held.has(appId)) this.bridge.log('log', `sending app ${appId}'s webhooks from this instance`);
      this.held.set(appId, { revision: answer.revision, renewStartedAt: startedAt });
      return answer.position;
    }
    this.lost(appId, answer.actual);
    return 0;
  }

  private async release(appId: number, expected: number): Promise<void> {
    this.held.delete(appId);
    const now = await this.bridge.now();
    const answer = (await this.bridge.execute({
      type: 'ReleaseDispatchLease',
      appId,
      owner: this.owner,
      expected,
      now,
    })) as DispatchLeaseAnswer;
    if (!answer.appended) this.lost(appId, answer.actual);
  }

  /** Refused: someone appended first. Until the feed says who, the stream's revision counts as just seen. */
  private lost(appId: number, actual: number | 'no_stream'): void {
    this.held.delete(appId);
    if (actual === 'no_stream') return;
    const seen = this.seen.get(appId);
    if (seen && seen.revision >= actual) return;
    this.seen.set(appId, {
      revision: actual,
      owner: null,
      released: false,
      leaseMs: this.config.leaseMs,
      seenAt: this.monotonic.elapsedMs(),
    });
  }

  private timing() {
    return { leaseMs: this.config.leaseMs, timeoutMs: this.config.timeoutMs };
  }
}
