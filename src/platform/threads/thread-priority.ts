import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** What lowering a thread's priority did: its kernel thread id and nice value, or why not. */
export type ThreadPriority = { tid: number; nice: number } | { skipped: string };

/**
 * Gives the calling thread a higher nice value (a lower CPU priority) than the rest of the process,
 * so background work (webhook deliveries) yields the cores to the API's event loop when both want
 * them and still runs whenever a core is free. Linux keeps a nice value per thread (setpriority(2)
 * with a thread id: NPTL's documented deviation from POSIX), which `os.setPriority` reaches with the
 * id `/proc/thread-self` names. Raising one's own nice value needs no privilege (a container with no
 * capabilities may). Elsewhere, or with `nice` 0, nothing changes. Threads the caller starts later
 * inherit the value: libuv's pool is started by the API's thread long before (its first log line).
 */
export function lowerThreadPriority(nice: number): ThreadPriority {
  if (nice <= 0) return { skipped: 'not asked (nice 0)' };
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
    return { tid, nice: getPriority(tid) };
  } catch (error) {
    return { skipped: `setpriority refused: ${(error as Error).message}` };
  }
}
