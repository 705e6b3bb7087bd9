import { randomBytesFromPool } from '../../src/platform/security/crypto';

describe('random bytes from the pool', () => {
  it('hands out bytes once: many draws across refills are all distinct and keep their value', () => {
    const seen = new Set<string>();
    const kept: Array<[Buffer, string]> = [];
    for (let i = 0; i < 2000; i++) {
      const b = randomBytesFromPool(32); // 2000 × 32 bytes: more than fifteen refills of the 4 KiB pool
      expect(b.length).toBe(32);
      const hex = b.toString('hex');
      expect(seen.has(hex)).toBe(false);
      seen.add(hex);
      if (i % 100 === 0) kept.push([b, hex]);
    }
    // Copies: a refill does not change bytes a caller already holds.
    for (const [b, hex] of kept) expect(b.toString('hex')).toBe(hex);
  });

  it('looks uniform: every byte value occurs, none far above its share', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 1000; i++) for (const byte of randomBytesFromPool(64)) counts[byte]! += 1;
    // 64,000 bytes: 250 expected per value; a CSPRNG stays well inside 150..350.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(350);
  });

  it('refuses sizes it cannot serve', () => {
    for (const size of [0, -1, 1.5, 4097, Number.NaN]) expect(() => randomBytesFromPool(size)).toThrow(RangeError);
  });
});
