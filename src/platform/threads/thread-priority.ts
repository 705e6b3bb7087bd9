import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How the thread is to be scheduled: `idle` (Linux's SCHED_IDLE, below any normal thread) or by nice value alone. */
export type ThreadPolicy = 'idle' | 'normal';

/**
 * What lowering a thread's priority did: its kernel thread id, nice value and scheduling policy (and,
 * when the idle policy was asked and refused, why), or why nothing was done.
 */
export type ThreadPriority =
  { tid: number; nice: number; policy: ThreadPolicy; policySkipped?: string } | { skipped: string };

/** Linux's number for SCHED_IDLE (sched.h), as /proc/<pid>/task/<tid>/stat's 41st field shows it. */
const SCHED_IDLE = 5;

/** A thread's nice value and policy from /proc (fields 19 and 41; the name in field 2 may hold spaces). */
export function schedulingOf(statFile: string): { nice: number; idle: boolean } {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
  return { nice: Number(fields[16]), idle: Number(fields[38]) === SCHED_IDLE };
}

/**
 * Gives the calling thread a lower CPU priority than the rest of the process, so background work
 * (webhook deliveries) yields the cores to the API's event loop when both want them and still runs
 * whenever a core is free.
 *
 * - A higher nice value: Linux keeps one per thread (setpriority(2) with a thread id: NPTL's
 *   documented deviation from POSIX), which `os.setPriority` reaches with the id `/proc/thread-self`
 *   names. Raising one's own nice value needs no privilege (a container with no capabilities may).
 * - With `policy: 'idle'`, also SCHED_IDLE (sched(7)): a nice value only weighs the thread's share,
 *   and the kernel may let it finish its slice (about a millisecond on a small host) before a woken
 *   normal thread runs; an idle-policy thread is preempted at once by any normal thread that wakes.
 *   Node has no call for it: util-linux's `chrt` sets it (any thread of the same user may switch to
 *   SCHED_IDLE unprivileged). Without `chrt`, or refused, the nice value stays and `policySkipped`
 *   says why.
 *
 * Elsewhere than Linux, or with `nice` 0 and no idle policy, nothing changes. Threads the caller
 * starts later inherit both: libuv's pool is started by the API's thread long before.
 */
export function lowerThreadPriority(nice: number, policy: ThreadPolicy = 'normal'): ThreadPriority {
  if (nice <= 0 && policy === 'normal') return { skipped: 'not asked (nice 0)' };
  if (process.platform !== 'linux') return { skipped: `per-thread priorities are Linux's (${process.platform})` };
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch (error) {
    return { skipped: `no /proc/thread-self: ${(error as Error).message}` };
  }
  if (!Number.isSafeInteger(tid) || tid <= 0) return { skipped: 'no thread id in /proc/thread-self' };
  try {
    // Never lower a value already higher (a service started under `nice`): only ever less priority.
    const current = getPriority(tid);
    if (current < nice) setPriority(tid, nice);
  } catch (error) {
    return { skipped: `setpriority refused: ${(error as Error).message}` };
  }
  const self = '/proc/thread-self/stat';
  let policySkipped: string | undefined;
  if (policy === 'idle' && !schedulingOf(self).idle) {
    try {
      execFileSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'pipe', timeout: 5000 });
    } catch (error) {
      const { code, stderr } = error as { code?: string; stderr?: Buffer };
      policySkipped =
        code === 'ENOENT'
          ? 'no chrt (util-linux) on PATH'
          : `chrt failed: ${stderr?.toString().trim() || (error as Error).message}`;
    }
  }
  // What the kernel holds now (a thread already idle stays so: never more priority).
  const now = { tid, nice: getPriority(tid), policy: (schedulingOf(self).idle ? 'idle' : 'normal') as ThreadPolicy };
  if (policy === 'idle' && now.policy !== 'idle')
    return { ...now, policySkipped: policySkipped ?? 'chrt ran, the policy did not change' };
  return now;
}
