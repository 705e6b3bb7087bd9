import { Inject, Injectable } from '@nestjs/common';

/** Time source. Injected everywhere so tests are deterministic (no sleeps, no Date.now in domain code). */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/**
 * Elapsed time that never steps: what lock and window durations are measured with, so a wall-clock
 * step (NTP, an operator) neither stretches a lock nor ends it early.
 */
export interface MonotonicClock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  elapsedMs(): number;
}

export const CLOCK = Symbol('CLOCK');
export const MONOTONIC_CLOCK = Symbol('MONOTONIC_CLOCK');

export const systemClock: Clock = { now: () => Date.now() };
export const systemMonotonicClock: MonotonicClock = { elapsedMs: () => performance.now() };

/**
 * Wall time that a forward step of the wall clock does not move on: never later than the wall time
 * at creation plus the monotonic time elapsed since. For decisions that must not be hurried by a
 * clock set ahead (archiving a token's history before the token really expired).
 */
export function steadyWallTime(clock: Clock, monotonic: MonotonicClock): () => number {
  const wallAtStart = clock.now();
  const elapsedAtStart = monotonic.elapsedMs();
  return () => Math.min(clock.now(), wallAtStart + (monotonic.elapsedMs() - elapsedAtStart));
}

/**
 * The installs' own clocks, in memory (filled by the OAuth module's InstallClocksProjection from the
 * checkpointed feed; its test controls: docs/testing-your-app.md): the time by which an install's
 * access tokens and authorization codes are issued and checked.
 * On the hot paths (bearer guard, metadata GET, refresh grant) a lookup is at most two Map gets and
 * no await; with no clock set anywhere it is one size check.
 */
@Injectable()
export class InstallClocks {
  /** appId -> hubId -> offset in ms. Nested maps: no key string is built per request. */
  private readonly offsets = new Map<number, Map<number, number>>();
  private count = 0;
  /** `${appId}:${hubId}` -> the furthest time an install reached before it was reset (not on a hot path). */
  private readonly reached = new Map<string, number>();

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  /** The install's time (epoch ms): the service's clock plus the install's offset. */
  nowFor(appId: number, hubId: number): number {
    const now = this.clock.now();
    if (this.count === 0) return now;
    return now + (this.offsets.get(appId)?.get(hubId) ?? 0);
  }

  /**
   * The furthest time the install's tokens may have been issued at: its time now, or, when its clock
   * was reset since, the time it had reached then. A token issued ahead keeps its later expiry after a
   * reset, so whatever must outlive every token of the install (the uninstall's revocation) counts from here.
   */
  furthestFor(appId: number, hubId: number): number {
    return Math.max(this.nowFor(appId, hubId), this.reached.get(`${appId}:${hubId}`) ?? 0);
  }

  /** The install's clock was reset when it had reached `time` (epoch ms). */
  reachedBeforeReset(appId: number, hubId: number, time: number): void {
    const key = `${appId}:${hubId}`;
    this.reached.set(key, Math.max(time, this.reached.get(key) ?? 0));
  }

  offsetMs(appId: number, hubId: number): number {
    return this.offsets.get(appId)?.get(hubId) ?? 0;
  }

  set(appId: number, hubId: number, offsetMs: number): void {
    if (offsetMs <= 0) return this.remove(appId, hubId);
    let ofApp = this.offsets.get(appId);
    if (!ofApp) this.offsets.set(appId, (ofApp = new Map()));
    if (!ofApp.has(hubId)) this.count++;
    ofApp.set(hubId, offsetMs);
  }

  remove(appId: number, hubId: number): void {
    const ofApp = this.offsets.get(appId);
    if (!ofApp?.delete(hubId)) return;
    this.count--;
    if (ofApp.size === 0) this.offsets.delete(appId);
  }

  clear(): void {
    this.offsets.clear();
    this.reached.clear();
    this.count = 0;
  }

  /** Installs with a clock ahead of real time. */
  get size(): number {
    return this.count;
  }
}
