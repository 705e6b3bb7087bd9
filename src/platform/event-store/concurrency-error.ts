import type { ExpectedRevision } from './event-store.port';

/** The stream had moved on (or did/did not exist) when an append expected otherwise. */
export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'ConcurrencyError';
  }
}
