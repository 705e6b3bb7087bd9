import { createHash } from 'node:crypto';
import { sha256Hex } from '../../src/platform/security/crypto';

describe('sha256Hex', () => {
  it.each(['', 'abc', 'Ada@Example.com', 'é😀', 'x'.repeat(10_000)])(
    'is the SHA-256 of the UTF-8 text, in lowercase hex (%#)',
    (value) => {
      expect(sha256Hex(value)).toBe(createHash('sha256').update(value, 'utf8').digest('hex'));
    },
  );

  it('matches the standard test vector', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
