import type { LimitOverrides } from '../domain/limits-events';

/**
 * What every limits read of one account takes from the `limits` read model besides its usage rows:
 * its overrides (`limits_overrides`) and how many custom object types it holds
 * (`limits_account_usage`). Frozen: one object is shared by every read until the account changes.
 */
export interface AccountLimitFigures {
  readonly overrides: Readonly<LimitOverrides>;
  readonly customObjectTypes: number;
}

/** Accounts whose figures are kept (about 200 bytes each: about 2 MiB when full). */
export const LIMITS_READ_CACHE_ACCOUNTS = 10_000;

/**
 * The accounts' limit figures as the shared read model holds them, so that a limits GET answers
 * without a SQLite query. Coherent with the read model by construction: the `limits` projection
 * forgets an account before it writes any row of it (`forget`, in the same synchronous batch
 * transaction, so no read comes between) and everything when it empties its tables (`clear`);
 * a read fills an entry from what the read model holds at that moment. So a read after a command
 * was answered (answer-after-commit waits for the projection's commit) sees what that command
 * changed, and a rolled-back batch only costs a read. Bounded: the oldest entry goes once full.
 * Only the shared read model's queries use it; the in-memory read models of the fallback do not.
 */
export class LimitsReadCache {
  private readonly entries = new Map<number, AccountLimitFigures>();

  constructor(readonly capacity: number = LIMITS_READ_CACHE_ACCOUNTS) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`capacity must be a positive integer: ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The account's figures, read by `read` when not kept (and then kept). */
  figures(hubId: number, read: () => AccountLimitFigures): AccountLimitFigures {
    const kept = this.entries.get(hubId);
    if (kept !== undefined) return kept;
    const fresh = read();
    const frozen = Object.freeze({
      overrides: Object.freeze({ ...fresh.overrides }),
      customObjectTypes: fresh.customObjectTypes,
    });
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as number);
    this.entries.set(hubId, frozen);
    return frozen;
  }

  /** The account's rows are about to change. */
  forget(hubId: number): void {
    this.entries.delete(hubId);
  }

  /** Every account's rows are about to change (the projection empties its tables). */
  clear(): void {
    this.entries.clear();
  }
}
