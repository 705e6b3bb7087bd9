// A GET load at a fixed rate (open loop), for latency at a given throughput rather than at saturation.
// Each request has an intended start on a fixed schedule and its latency counts from there, not from
// when it was actually sent (wrk2's correction for coordinated omission: a stalled server delays the
// requests due meanwhile, and that wait is part of what a caller sees). The generator runs in a worker
// thread of its own, so the bench's receiver and batch creates on the main thread do not delay its
// schedule or its clock readings. Loopback only, bounded in time and in requests in flight.
import { Worker } from 'node:worker_threads';

const GENERATOR = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { url, headers, rate, warmupS, durationS, maxInFlight } = workerData;
const target = new URL(url);
if (target.hostname !== '127.0.0.1') throw new Error('the fixed-rate load targets 127.0.0.1 only');
const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
const latencies = [];
let errors = 0;
let dropped = 0;
let inFlight = 0;
const begin = performance.now();
const measuredFrom = begin + warmupS * 1000;
const end = measuredFrom + durationS * 1000;
const interval = 1000 / rate;
let sent = 0;
let finished = false;
function send(intended) {
  const measured = intended >= measuredFrom;
  if (inFlight >= maxInFlight) {
    if (measured) dropped++;
    return;
  }
  inFlight++;
  const req = http.request(
    { host: target.hostname, port: target.port, path: target.pathname + target.search, headers, agent },
    (res) => {
      res.resume();
      res.on('end', () => {
        inFlight--;
        if (!measured) return;
        if (res.statusCode === 200) latencies.push(performance.now() - intended);
        else errors++;
        maybeDone();
      });
    },
  );
  req.on('error', () => {
    inFlight--;
    if (measured) errors++;
    maybeDone();
  });
  req.end();
}
function maybeDone() {
  if (!finished || inFlight > 0) return;
  agent.destroy();
  parentPort.postMessage({ latencies, errors, dropped, seconds: durationS });
}
function tick() {
  const now = performance.now();
  const due = Math.min(Math.floor((Math.min(now, end) - begin) / interval), Math.ceil((end - begin) / interval));
  while (sent < due) send(begin + sent++ * interval);
  if (now >= end) {
    finished = true;
    maybeDone();
    return;
  }
  setTimeout(tick, Math.max(0, Math.min(1, begin + sent * interval - performance.now())));
}
tick();
`;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/**
 * GETs `url` at `rate` requests a second: `warmupS` unmeasured, then `durationS` measured. Latencies in
 * ms from each request's intended start; `dropped` counts requests not sent because `maxInFlight`
 * were already waiting (the schedule is not kept: a figure with drops is not comparable).
 */
export function fixedRate({ url, headers = {}, rate, warmupS = 2, durationS = 8, maxInFlight = 256 }) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(GENERATOR, {
      eval: true,
      workerData: { url, headers, rate, warmupS, durationS, maxInFlight },
    });
    worker.once('error', reject);
    worker.once('message', ({ latencies, errors, dropped, seconds }) => {
      void worker.terminate();
      const sorted = Float64Array.from(latencies).sort();
      resolve({
        rate,
        answered: sorted.length,
        reqPerSec: sorted.length / seconds,
        errors,
        dropped,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        p999: quantile(sorted, 0.999),
        max: sorted.length > 0 ? sorted[sorted.length - 1] : NaN,
      });
    });
  });
}
