import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt } from '../support/service-process';

const ROOT = join(__dirname, '..', '..');

/**
 * The shutdown awaits the log's flush and then Nest ends the process with the signal: whatever is
 * still in flight then is lost. A child logs a line far larger than a pipe holds, then one more,
 * awaits flush() and kills itself at once: every byte must have reached the pipe.
 */
async function runChild(dist: string): Promise<{ stdout: string; signal: NodeJS.Signals | null }> {
  const script = `
    const { createServiceLog } = require(${JSON.stringify(join(dist, 'platform/logging/logger.js'))});
    const log = createServiceLog('info', 'json', 120000); // no cap in reach, however busy the machine
    log.logger.info('x'.repeat(4_000_000));
    log.logger.info('the last line');
    log.flush().then(() => process.kill(process.pid, 'SIGKILL'));
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  // Read slowly at first, so that the writes are still in flight when flush() is called.
  child.stdout.pause();
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  setImmediate(() => child.stdout.resume());
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_c, s) => resolve(s)));
  return { stdout, signal };
}

describe('the service log (JSON on a pipe)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('flush() resolves only once every line written so far is out', async () => {
    const { stdout, signal } = await runChild(join(ROOT, 'dist'));
    expect(signal).toBe('SIGKILL');
    // Compared by shape, not printed: a failure here would otherwise print megabytes.
    const lines = stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.length)).toEqual([expect.any(Number), expect.any(Number)]);
    expect((JSON.parse(lines[0]) as { msg: string }).msg.length).toBe(4_000_000);
    expect((JSON.parse(lines[1]) as { msg: string }).msg).toBe('the last line');
  }, 60_000);
});
