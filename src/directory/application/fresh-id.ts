import { randomInt } from 'node:crypto';
import { retryOnConflict, type RetryPolicy } from '../../platform/commands/retry-policy';
import { ConcurrencyError } from '../../platform/event-store/concurrency-error';
import { IdTaken } from '../domain/directory-deciders';

/** Ids look like HubSpot's: positive int32, at least 8 digits. */
const newId = () => randomInt(10_000_000, 2_147_483_647);

/** Random ids of this size rarely collide: a few fresh draws settle any collision. */
export const FRESH_ID_POLICY: RetryPolicy = { maxAttempts: 5 };

/**
 * Runs a step under a random id of one id space (`directory.app`, ...). A step that finds its id
 * taken (IdTaken) lost the race for that id just as an append that expected no stream there: the
 * one retry loop draws another id, as FRESH_ID_POLICY allows, then answers 409.
 */
export function withFreshId<T>(idSpace: string, step: (id: number) => Promise<T>): Promise<T> {
  return retryOnConflict(idSpace, FRESH_ID_POLICY, async () => {
    const id = newId();
    try {
      return await step(id);
    } catch (error) {
      if (error instanceof IdTaken) throw new ConcurrencyError(`${idSpace}-${id}`, 'no_stream', 0);
      throw error;
    }
  });
}
