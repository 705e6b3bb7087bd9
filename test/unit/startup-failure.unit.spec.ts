import { tmpdir } from 'node:os';
import { describeStartupFailure } from '../../src/startup-failure';

/** The full-disk sentence only where DATA_DIR's disk is the full one (test/integration/storage-full fills one). */
describe('start-up failures: a write without a path that found no space', () => {
  const settings = { host: '127.0.0.1', port: 3000, dataDir: tmpdir() };
  const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    syscall: 'write',
  });

  it('is not blamed on DATA_DIR while its disk has room (a bug or another disk: the stack trace is printed)', () => {
    expect(describeStartupFailure(enospc, settings)).toBeNull();
  });

  it('names DATA_DIR when the error carries its path', () => {
    const withPath = Object.assign(new Error('ENOSPC: no space left on device, open'), {
      code: 'ENOSPC',
      path: `${tmpdir()}/signing-key.json.tmp`,
    });
    expect(describeStartupFailure(withPath, settings)).toMatch(/^The disk of DATA_DIR .* is full/);
  });
});
