import { type DispatchLeaseEvent, WebhooksEventType } from './webhook-events';

/**
 * Who sends an app's deliveries when several instances share one store: the instance holding the
 * app's dispatch lease, a stream of `DispatchLeaseTaken`/`Released` events appended at the revision
 * the appender saw (the fence). Time is each instance's own monotonic clock, never compared across
 * instances: a lease counts as lapsed when its stream has not moved for the lease plus the request
 * timeout as the observer measures it, so a request its owner started while the lease held has
 * ended before another instance may send the same items. Pure: the times come in.
 */

/** What an instance last saw of an app's lease stream. */
export interface LeaseSeen {
  /** The stream's last revision. */
  revision: number;
  /** The owner as of that revision; null once released, or when learnt from a refused append. */
  owner: string | null;
  released: boolean;
  /** The lease's length as its owner took it (the observer's own when unknown). */
  leaseMs: number;
  /** The observer's monotonic time when it learnt of this revision. */
  seenAt: number;
}

/** A lease this instance holds: the revision its last append made, and when that append was started. */
export interface LeaseHeld {
  revision: number;
  renewStartedAt: number;
}

export type LeaseStep =
  | { kind: 'send' }
  | { kind: 'renew'; expected: number }
  | { kind: 'take'; expected: number | 'no_stream' }
  | { kind: 'release'; expected: number }
  | { kind: 'wait' };

export interface LeaseTiming {
  leaseMs: number;
  /** The longest a request may take (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * The next step for one app: `busy` when it has items due or requests in flight. The owner renews
 * a third of the way into its lease while busy and sends only within it; idle for half a lease, it
 * releases. Another instance takes a released lease at once, a silent one after lease + timeout.
 */
export function leaseStep(input: {
  held: LeaseHeld | null;
  seen: LeaseSeen | undefined;
  busy: boolean;
  now: number;
  timing: LeaseTiming;
}): LeaseStep {
  const { held, seen, busy, now, timing } = input;
  if (held) {
    const age = now - held.renewStartedAt;
    if (!busy) return age >= timing.leaseMs / 2 ? { kind: 'release', expected: held.revision } : { kind: 'wait' };
    // A renewal at the held revision is safe even after the lease ran out: it fails if anyone took it.
    if (age >= timing.leaseMs / 3) return { kind: 'renew', expected: held.revision };
    return { kind: 'send' };
  }
  if (!busy) return { kind: 'wait' };
  if (seen === undefined) return { kind: 'take', expected: 'no_stream' };
  if (seen.released || now - seen.seenAt >= seen.leaseMs + timing.timeoutMs)
    return { kind: 'take', expected: seen.revision };
  return { kind: 'wait' };
}

/** What an observer knows after a lease event at `revision` (never going back to an older revision). */
export function observe(
  seen: LeaseSeen | undefined,
  event: DispatchLeaseEvent,
  revision: number,
  now: number,
): LeaseSeen | undefined {
  if (seen && revision < seen.revision) return seen;
  if (seen && revision === seen.revision && seen.owner !== null) return seen;
  return event.type === WebhooksEventType.DispatchLeaseTaken
    ? { revision, owner: event.data.owner, released: false, leaseMs: event.data.leaseMs, seenAt: now }
    : { revision, owner: null, released: true, leaseMs: seen?.leaseMs ?? 0, seenAt: now };
}

/** The events of a take (or renewal) and of a release. */
export function leaseTaken(appId: number, owner: string, leaseMs: number, now: number): DispatchLeaseEvent {
  return { type: WebhooksEventType.DispatchLeaseTaken, data: { appId, owner, leaseMs, takenAt: now } };
}

export function leaseReleased(appId: number, owner: string, now: number): DispatchLeaseEvent {
  return { type: WebhooksEventType.DispatchLeaseReleased, data: { appId, owner, releasedAt: now } };
}
