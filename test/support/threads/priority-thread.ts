import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority, type ThreadPolicy } from '../../../src/platform/threads/thread-priority';

// Lowers its own priority to the asked value (and policy), then asks for less (which must change nothing).
const { first, second, policy } = (workerData as { data: { first: number; second: number; policy?: ThreadPolicy } })
  .data;
parentPort!.postMessage({ first: lowerThreadPriority(first, policy), second: lowerThreadPriority(second) });
