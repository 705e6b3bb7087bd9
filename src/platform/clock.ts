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
 * A clock tests move by hand. `advance` is time passing (wall and elapsed time both move); `set` is
 * a step of the wall clock only, as when a host's clock is corrected.
 */
export class ManualClock implements Clock, MonotonicClock {
  private elapsed = 0;
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  elapsedMs(): number {
    return this.elapsed;
  }
  advance(ms: number): void {
    this.current += ms;
    this.elapsed += Math.max(0, ms);
  }
  set(ms: number): void {
    this.current = ms;
  }
}

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
 * How long the resets of an install's clock are remembered one by one: longer than any access token
 * lives (ACCESS_TOKEN_TTL_SECONDS is at most a day), and a token is at least as old as the real time
 * since the first reset after its issue.
 */
export const RESET_MEMORY_MS = 24 * 60 * 60 * 1000;

/** The resets of one install's clock: its era now, all the offset they dropped, and the recent ones. */
interface ClockEras {
  epoch: number;
  droppedMs: number;
  /** era -> the reset that began it (real time) and what the resets before it had dropped. */
  droppedBefore: Map<number, { resetAt: number; droppedBeforeMs: number }>;
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
  /** appId -> hubId -> the resets of the install's clock (only installs whose clock was ever reset). */
  private readonly eras = new Map<number, Map<number, ClockEras>>();

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

  /**
   * The install's clock era: how many times its clock was reset. Access tokens carry the era they
   * were issued in, so a token issued before a reset is judged by the time that passed on the clock
   * that issued it (droppedSinceMs), not by the real time the reset went back to.
   */
  epochOf(appId: number, hubId: number): number {
    if (this.eras.size === 0) return 0;
    return this.eras.get(appId)?.get(hubId)?.epoch ?? 0;
  }

  /**
   * How much earlier, on the install's clock now, a token issued in `epoch` expires than the expiry it
   * carries: the offsets dropped by the resets since it was issued (its clock had passed that time, a
   * reset does not give it back). 0 for a token of the current era. For an era whose reset is no longer
   * remembered (over RESET_MEMORY_MS ago: its tokens are long dead) every dropped offset counts, which
   * only makes such a token expire earlier still.
   */
  droppedSinceMs(appId: number, hubId: number, epoch: number): number {
    if (this.eras.size === 0) return 0;
    const eras = this.eras.get(appId)?.get(hubId);
    if (eras === undefined || epoch >= eras.epoch) return 0;
    return eras.droppedMs - (eras.droppedBefore.get(epoch + 1)?.droppedBeforeMs ?? 0);
  }

  /**
   * The install's clock was reset into era `epoch`, dropping `droppedMs` of offset at `resetAt` (real
   * time); `droppedTotalMs` is what all its resets dropped, this one included.
   */
  resetInto(
    appId: number,
    hubId: number,
    reset: { epoch: number; resetAt: number; droppedBeforeMs: number; droppedTotalMs: number },
  ): void {
    this.enterEra(appId, hubId, reset.epoch, reset.droppedTotalMs);
    this.rememberReset(appId, hubId, reset.epoch, reset.resetAt, reset.droppedBeforeMs);
  }

  /** The install's clock is in era `epoch` (never goes back), its resets having dropped `droppedTotalMs` in all. */
  enterEra(appId: number, hubId: number, epoch: number, droppedTotalMs: number): void {
    const eras = this.erasOf(appId, hubId);
    if (epoch <= eras.epoch) return;
    eras.epoch = epoch;
    eras.droppedMs = droppedTotalMs;
  }

  /**
   * The reset that began era `epoch`: when (real time) and what the resets before it had dropped.
   * Resets over RESET_MEMORY_MS ago are forgotten (see droppedSinceMs).
   */
  rememberReset(appId: number, hubId: number, epoch: number, resetAt: number, droppedBeforeMs: number): void {
    const eras = this.erasOf(appId, hubId);
    eras.droppedBefore.set(epoch, { resetAt, droppedBeforeMs });
    const now = this.clock.now();
    for (const [e, r] of eras.droppedBefore) if (r.resetAt + RESET_MEMORY_MS <= now) eras.droppedBefore.delete(e);
  }

  private erasOf(appId: number, hubId: number): ClockEras {
    let ofApp = this.eras.get(appId);
    if (!ofApp) this.eras.set(appId, (ofApp = new Map()));
    let eras = ofApp.get(hubId);
    if (!eras) ofApp.set(hubId, (eras = { epoch: 0, droppedMs: 0, droppedBefore: new Map() }));
    return eras;
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
    this.eras.clear();
    this.count = 0;
  }

  /** Installs with a clock ahead of real time. */
  get size(): number {
    return this.count;
  }
}
