import { createHash, hash, randomFillSync, timingSafeEqual } from 'node:crypto';

/** Stored form of a high-entropy secret (tokens, codes, client secrets): SHA-256, hex. */
export function sha256Hex(value: string): string {
  // The one-shot hash makes no Hash object (a batch create hashes every e-mail it claims).
  return hash('sha256', value, 'hex');
}

/** Compares two secrets in constant time, also when their lengths differ (hash both first). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

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
