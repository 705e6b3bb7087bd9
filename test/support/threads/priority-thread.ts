import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../../../src/platform/threads/thread-priority';

// Lowers its own priority to the asked value, then asks for less (which must change nothing).
const { first, second } = (workerData as { data: { first: number; second: number } }).data;
parentPort!.postMessage({ first: lowerThreadPriority(first), second: lowerThreadPriority(second) });
