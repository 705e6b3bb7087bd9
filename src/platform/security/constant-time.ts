import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in constant time, also when their lengths differ (hash both first). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/** Stored form of a high-entropy secret (tokens, codes, client secrets): SHA-256, hex. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
