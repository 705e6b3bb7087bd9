import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock';
import type { FaultSet } from '../domain/fault-events';
import { type FaultMatch, type FaultResponse, pathMatcher } from '../domain/fault-spec';

/** Draws the per-request chance of a `ratio` fault; tests hand in their own. */
export const FAULT_RANDOM = Symbol('FAULT_RANDOM');
export type RandomSource = () => number;

/** A fault as the admin API lists it. */
export interface FaultView {
  faultId: string;
  appId: number;
  match: FaultMatch;
  response: FaultResponse;
  times?: number;
  ratio?: number;
  seconds?: number;
  createdAt: number;
  /** When `seconds` runs out (epoch ms). */
  expiresAt?: number;
  /** Answers this instance has injected for the fault. */
  injected: number;
  /** Still applies: not expired, and `times` not used up. */
  active: boolean;
}

/** Who a request is, as far as the faults care: the app it is for, and with a developer key the key's account. */
export interface FaultSubject {
  /** The app of the bearer token or client credentials; with a developer API key, the app the route names. */
  appId: number;
  /**
   * Set for a developer API key: the account the key belongs to. The app's faults apply only when
   * that account is the app's developer account (the key may act on that app alone of the two).
   */
  developerHubId?: number;
  /** The account the request acts on, when known before the handler (null at the token endpoints). */
  hubId: number | null;
}

export interface FaultRequest {
  method: string;
  path: string;
}

interface HeldFault {
  set: FaultSet['data'];
  matchesPath: (path: string) => boolean;
  expiresAt: number | undefined;
  injected: number;
}

/**
 * The faults in force, in memory, so matching a request is map lookups and a compiled glob, never a
 * store read. Fed by FaultsProjection from the checkpointed feed. The injected counts are this
 * instance's (like the rate-limit counters): they start at 0 again after a restart, and with several
 * instances each counts its own answers, so `times` applies per instance.
 */
@Injectable()
export class FaultRegistry {
  /** appId -> faultId -> fault, in the order they were set. */
  private readonly byApp = new Map<number, Map<string, HeldFault>>();
  private readonly random: RandomSource;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(FAULT_RANDOM) random?: RandomSource,
  ) {
    this.random = random ?? Math.random;
  }

  /** No fault is set on any app: the request hook does nothing else. */
  get isEmpty(): boolean {
    return this.byApp.size === 0;
  }

  add(set: FaultSet['data']): void {
    let faults = this.byApp.get(set.appId);
    if (!faults) this.byApp.set(set.appId, (faults = new Map()));
    faults.set(set.faultId, {
      set,
      matchesPath: set.match.path === undefined ? () => true : pathMatcher(set.match.path),
      expiresAt: set.seconds === undefined ? undefined : set.setAt + set.seconds * 1000,
      injected: 0,
    });
  }

  remove(appId: number, faultIds: readonly string[]): void {
    const faults = this.byApp.get(appId);
    if (!faults) return;
    for (const id of faultIds) faults.delete(id);
    if (faults.size === 0) this.byApp.delete(appId);
  }

  clear(): void {
    this.byApp.clear();
  }

  list(appId: number): FaultView[] {
    const now = this.clock.now();
    return [...(this.byApp.get(appId)?.values() ?? [])].map((f) => this.view(f, now));
  }

  get(appId: number, faultId: string): FaultView | undefined {
    const fault = this.byApp.get(appId)?.get(faultId);
    return fault ? this.view(fault, this.clock.now()) : undefined;
  }

  /**
   * The first fault (oldest first) that applies to this request, counted as injected; null when none
   * does. A `ratio` fault that is not drawn this time lets the next fault have its turn.
   */
  take(
    subject: FaultSubject,
    request: FaultRequest,
  ): { faultId: string; appId: number; response: FaultResponse } | null {
    // Only the faults of the app the request is for: never another app's, even of the same developer account.
    const faults = this.byApp.get(subject.appId);
    if (faults === undefined) return null;
    const now = this.clock.now();
    for (const fault of faults.values()) {
      const s = fault.set;
      if (subject.developerHubId !== undefined && subject.developerHubId !== s.developerHubId) return null;
      if (!this.applies(fault, now)) continue;
      if (s.match.method !== undefined && s.match.method !== request.method) continue;
      if (s.match.hubId !== undefined && s.match.hubId !== subject.hubId) continue;
      if (!fault.matchesPath(request.path)) continue;
      if (s.ratio !== undefined && this.random() >= s.ratio) continue;
      fault.injected++;
      return { faultId: s.faultId, appId: subject.appId, response: s.response };
    }
    return null;
  }

  private applies(fault: HeldFault, now: number): boolean {
    if (fault.expiresAt !== undefined && now >= fault.expiresAt) return false;
    return fault.set.times === undefined || fault.injected < fault.set.times;
  }

  private view(fault: HeldFault, now: number): FaultView {
    const s = fault.set;
    return {
      faultId: s.faultId,
      appId: s.appId,
      match: s.match,
      response: s.response,
      ...(s.times !== undefined ? { times: s.times } : {}),
      ...(s.ratio !== undefined ? { ratio: s.ratio } : {}),
      ...(s.seconds !== undefined ? { seconds: s.seconds } : {}),
      createdAt: s.setAt,
      ...(fault.expiresAt !== undefined ? { expiresAt: fault.expiresAt } : {}),
      injected: fault.injected,
      active: this.applies(fault, now),
    };
  }
}
