import { isStorageFault } from '../event-store/storage-fault';
import type { ProjectionRunner } from './projection-runner';

/**
 * The answer of a command whose events are committed: read back from the read model once it holds
 * them (read-your-writes), else built from what the command decided. Never a failure: the write
 * happened, and a client told otherwise would retry it into a conflict. A lagging or failed
 * projection shows on `/health/ready` instead.
 */
export async function answerAfterCommit<T>(
  runner: Pick<ProjectionRunner, 'readModelsReached'>,
  position: number,
  fromReadModel: () => T | null | undefined,
  fromDecision: () => T | Promise<T>,
): Promise<T> {
  if (await runner.readModelsReached(position)) {
    try {
      const view = fromReadModel();
      if (view !== null && view !== undefined) return view;
    } catch (error) {
      // The read model's file refusing a read is no reason to fail a committed write; a bug is.
      if (!isStorageFault(error)) throw error;
    }
  }
  return fromDecision();
}
