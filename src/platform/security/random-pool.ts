import { randomFillSync } from 'node:crypto';

/**
 * CSPRNG bytes drawn from a pool filled 4 KiB at a time, as Node does for randomUUID: one
 * `randomFillSync` per 128 tokens instead of a crypto job per token (a visible share of the token
 * endpoint). Every byte comes from the system CSPRNG and is handed out once.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

export function randomBytesFromPool(size: number): Buffer {
  if (!Number.isInteger(size) || size <= 0 || size > POOL_SIZE) throw new RangeError(`random size ${size}`);
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  // A copy, so a caller keeping the bytes does not see them change at the next refill.
  const out = Buffer.from(pool.subarray(offset, offset + size));
  pool.fill(0, offset, offset + size);
  offset += size;
  return out;
}
