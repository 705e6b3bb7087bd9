// Child processes of the benchmark: servers run apart from the load generator, so the two never
// share one event loop.
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Starts `node script` and resolves with the JSON object it prints on its first stdout line. */
export function spawnJsonServer(script, { env = {}, args = [], timeoutMs = 30_000 } = {}) {
  const child = spawn(process.execPath, [...args, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${timeoutMs} ms:\n${err}`));
    }, timeoutMs);
    child.stdout.on('data', (c) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve({ child, info: JSON.parse(out.slice(0, nl)), stderr: () => err });
      } catch (e) {
        reject(e);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${err}`));
    });
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Stops a child (SIGTERM, then SIGKILL after `graceMs`) and resolves once it is gone. */
export async function stop(child, graceMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Resident set size of a process in bytes (VmRSS), 0 once it is gone. */
export function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds (user + system) a process has used, and those of its main thread (the event loop):
 * /proc/<pid>/stat and /proc/<pid>/task/<pid>/stat, in clock ticks of 1/100 s.
 */
export function cpuOf(pid) {
  const ticks = (file) => {
    try {
      // The command name may hold spaces; the fields we want follow its closing parenthesis.
      const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return 0;
    }
  };
  return { process: ticks(`/proc/${pid}/stat`), mainThread: ticks(`/proc/${pid}/task/${pid}/stat`) };
}

/**
 * Milliseconds a process's threads spent runnable but waiting for a core (the kernel's run-queue
 * wait, /proc/<pid>/task/<tid>/schedstat's second field): of its main thread (the event loop) and
 * of all its threads. On a shared host this is what other work's CPU costs a thread that wanted to run.
 */
export function runQueueWaitOf(pid) {
  const waitMs = (file) => {
    try {
      return Number(readFileSync(file, 'utf8').split(' ')[1]) / 1e6;
    } catch {
      return 0;
    }
  };
  let all = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) all += waitMs(`/proc/${pid}/task/${tid}/schedstat`);
  } catch {
    // gone: 0
  }
  return { mainThread: waitMs(`/proc/${pid}/task/${pid}/schedstat`), process: all };
}

/**
 * Counters of a process's main thread (the event loop) the kernel keeps: context switches it made
 * itself (it blocked: waiting for events, or for a lock such as the address space's) and those forced
 * on it (preempted), and its minor page faults. /proc/<pid>/task/<pid>/status and stat (field 10).
 */
export function mainThreadCountersOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      voluntary: field('voluntary_ctxt_switches'),
      involuntary: field('nonvoluntary_ctxt_switches'),
      minorFaults: Number(stat[7]),
    };
  } catch {
    return { voluntary: 0, involuntary: 0, minorFaults: 0 };
  }
}

/** Samples a process's RSS every `everyMs` until stopped; `stop()` returns the peak in bytes. */
export function sampleRss(pid, everyMs = 50) {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssOf(pid));
    },
  };
}

/** Polls `url` until it answers `status` (readiness checks only, never inside a measurement). */
export async function waitForStatus(url, status, { timeoutMs = 120_000, everyMs = 20 } = {}) {
  const began = performance.now();
  for (;;) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status === status) return performance.now() - began;
    } catch {
      // not listening yet
    }
    if (performance.now() - began > timeoutMs)
      throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
