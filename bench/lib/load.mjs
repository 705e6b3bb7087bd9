// autocannon on 127.0.0.1: a short warm-up, then a measured run bounded in time.
import autocannon from 'autocannon';
import { cpuOf, sampleRss } from './processes.mjs';

export const CONNECTIONS = 32;

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, timeout: 10, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/**
 * Measures one scenario against a server process: `warmupS` seconds unmeasured, then `durationS`
 * seconds (or `amount` requests, whichever ends first) with the server's RSS sampled throughout.
 */
export async function measure(name, { pid, warmupS = 2, durationS = 6, quiet = false, profile = false, ...options }) {
  if (warmupS > 0) await run({ ...options, duration: warmupS });
  // A server started with bench/profile-preload.cjs profiles exactly the measured run.
  const profiling = profile && process.env.BENCH_PROFILE_DIR;
  if (profiling) process.kill(pid, 'SIGWINCH');
  const rss = sampleRss(pid);
  const cpu = process.cpuUsage();
  const serverCpu = cpuOf(pid);
  const r = await run({ ...options, duration: durationS });
  const used = process.cpuUsage(cpu);
  const serverUsed = cpuOf(pid);
  const peakRss = rss.stop();
  if (profiling) process.kill(pid, 'SIGWINCH');
  const ok = r['2xx'];
  const failed = r.non2xx + r.errors + r.timeouts;
  const result = {
    name,
    // Successful answers over the run's wall time (autocannon's per-second average drops partial seconds).
    reqPerSec: ok / r.duration,
    total: r.requests.total,
    ok,
    failed,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    seconds: r.duration,
    peakRss,
    connections: CONNECTIONS,
    // The load generator's own CPU over the run (100 % = one core, all it can use): near 100 %, the
    // figure is the generator's ceiling, not the server's.
    clientCpu: (used.user + used.system) / 1e6 / r.duration,
    // The server's CPU over the run, all threads and its event-loop thread alone (100 % = one core).
    serverCpu: (serverUsed.process - serverCpu.process) / r.duration,
    serverMainCpu: (serverUsed.mainThread - serverCpu.mainThread) / r.duration,
  };
  // Event-loop CPU per 2xx answer, in µs: what a lever changes, less moved by a loaded machine than req/s.
  result.loopUsPerAnswer = ok > 0 ? (result.serverMainCpu * r.duration * 1e6) / ok : undefined;
  if (failed > 0 && ok === 0)
    throw new Error(`${name}: every request failed (${r.non2xx} non-2xx, ${r.errors} errors)`);
  if (quiet) return result;
  const mib = (peakRss / 1048576).toFixed(0);
  console.log(
    `  ${name.padEnd(44)} ${result.reqPerSec.toFixed(0).padStart(7)} req/s  p50 ${String(result.p50).padStart(3)} ms  p99 ${String(result.p99).padStart(3)} ms  RSS ${mib.padStart(4)} MiB  client ${(result.clientCpu * 100).toFixed(0).padStart(3)} %  server ${(result.serverCpu * 100).toFixed(0).padStart(3)} % (loop ${(result.serverMainCpu * 100).toFixed(0).padStart(3)} %, ${result.loopUsPerAnswer?.toFixed(1) ?? '-'} µs/answer)  ${failed ? `FAILED ${failed}` : 'all 2xx'}`,
  );
  return result;
}
