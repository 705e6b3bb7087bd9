import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { startModuleThread } from '../../src/platform/threads/module-thread';
import { lowerThreadPriority, type ThreadPriority } from '../../src/platform/threads/thread-priority';

/** Field 19 of /proc/self/task/<tid>/stat: that thread's nice value. */
const niceOf = (tid: number) =>
  Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);

describe('lowerThreadPriority (the webhooks delivery thread below the API’s event loop)', () => {
  it('leaves the thread alone when asked for 0', () => {
    expect(lowerThreadPriority(0)).toEqual({ skipped: 'not asked (nice 0)' });
  });

  const linux = process.platform === 'linux' ? it : it.skip; // per-thread nice values are Linux's
  linux('lowers the calling thread only, and never gives priority back', async () => {
    const before = niceOf(process.pid);
    // In a thread of its own: this test's thread could not get its priority back.
    const worker = startModuleThread(
      require.resolve('../support/threads/priority-thread'),
      { first: 7, second: 3 },
      { name: 'priority' },
    );
    const [answer] = (await once(worker, 'message')) as [{ first: ThreadPriority; second: ThreadPriority }];
    const tid = (answer.first as { tid: number }).tid;
    expect(answer.first).toEqual({ tid: expect.any(Number), nice: Math.max(7, before) });
    expect(niceOf(tid)).toBe(Math.max(7, before));
    expect(answer.second).toEqual({ tid, nice: Math.max(7, before) }); // asked for less: unchanged
    expect(tid).not.toBe(process.pid);
    expect(niceOf(process.pid)).toBe(before);
    await worker.terminate();
  });
});
