import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { startModuleThread } from '../../src/platform/threads/module-thread';
import {
  lowerThreadPriority,
  schedulingOf,
  type ThreadPolicy,
  type ThreadPriority,
} from '../../src/platform/threads/thread-priority';

const niceOf = (tid: number) => schedulingOf(`/proc/self/task/${tid}/stat`).nice;
const idle = (tid: number) => schedulingOf(`/proc/self/task/${tid}/stat`).idle;

/** In a thread of its own (this test's thread could not get its priority back): what it reported. */
async function lowered(first: number, second: number, policy?: ThreadPolicy) {
  const worker = startModuleThread(
    require.resolve('../support/threads/priority-thread'),
    { first, second, policy },
    { name: 'priority' },
  );
  const [answer] = (await once(worker, 'message')) as [{ first: ThreadPriority; second: ThreadPriority }];
  return { ...answer, tid: (answer.first as { tid: number }).tid, worker };
}

const hasChrt = (() => {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('lowerThreadPriority (the webhooks delivery thread below the API’s event loop)', () => {
  it('leaves the thread alone when asked for 0', () => {
    expect(lowerThreadPriority(0)).toEqual({ skipped: 'not asked (nice 0)' });
  });

  const linux = process.platform === 'linux' ? it : it.skip; // per-thread nice values are Linux's
  linux('lowers the calling thread only, and never gives priority back', async () => {
    const before = niceOf(process.pid);
    const { first, second, tid, worker } = await lowered(7, 3);
    expect(first).toEqual({ tid: expect.any(Number), nice: Math.max(7, before), policy: 'normal' });
    expect(niceOf(tid)).toBe(Math.max(7, before));
    expect(idle(tid)).toBe(false);
    expect(second).toEqual({ tid, nice: Math.max(7, before), policy: 'normal' }); // asked for less: unchanged
    expect(tid).not.toBe(process.pid);
    expect(niceOf(process.pid)).toBe(before);
    await worker.terminate();
  });

  linux(
    'puts the calling thread alone under SCHED_IDLE when asked (through chrt), keeping its nice value',
    async () => {
      const before = niceOf(process.pid);
      const { first, tid, worker } = await lowered(10, 0, 'idle');
      if (hasChrt) {
        expect(first).toEqual({ tid, nice: Math.max(10, before), policy: 'idle' });
        expect(idle(tid)).toBe(true);
      } else {
        // The nice value still applies; the log line says why the policy did not.
        expect(first).toEqual({
          tid,
          nice: Math.max(10, before),
          policy: 'normal',
          policySkipped: 'no chrt (util-linux) on PATH',
        });
        expect(idle(tid)).toBe(false);
      }
      expect(idle(process.pid)).toBe(false);
      expect(niceOf(process.pid)).toBe(before);
      await worker.terminate();
    },
  );

  linux('asked for the idle policy with nice 0, still sets it', async () => {
    const { first, tid, worker } = await lowered(0, 0, 'idle');
    expect(first).toMatchObject({ tid, policy: hasChrt ? 'idle' : 'normal' });
    expect(idle(tid)).toBe(hasChrt);
    await worker.terminate();
  });
});
