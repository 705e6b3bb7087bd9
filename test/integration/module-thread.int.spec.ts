import { once } from 'node:events';
import { startModuleThread } from '../../src/platform/threads/module-thread';
import { sha256Hex } from '../../src/platform/security/crypto';

/**
 * A TypeScript module of the build started in a worker thread (the tests run the source, the
 * service its build), several times in one process: a compiler whose native addon crashed the
 * process when a second thread loaded it (SWC's) took the whole jest worker down with a SIGSEGV.
 */
describe('startModuleThread', () => {
  it('runs a .ts module with its extensionless imports, one thread after another', async () => {
    for (const text of ['first', 'second', 'third']) {
      const worker = startModuleThread(require.resolve('../support/threads/echo-thread'), { text }, { name: 'echo' });
      const [message] = (await once(worker, 'message')) as [{ echoed: string; digest: string }];
      expect(message).toEqual({ echoed: text, digest: sha256Hex(text) });
      await worker.terminate();
    }
  });
});
