// A GET load at a fixed rate (open loop), for latency at a given throughput rather than at saturation.
// Each request has an intended start on a fixed schedule and its latency counts from there, not from
// when it was actually sent (wrk2's correction for coordinated omission: a stalled server delays the
// requests due meanwhile, and that wait is part of what a caller sees). The generator runs in a worker
// thread of its own, so the bench's receiver and batch creates on the main thread do not delay its
// schedule or its clock readings. Loopback only, bounded in time and in requests in flight.
// Requests are written as prepared bytes on kept-alive sockets and answers read by their
// Content-Length, not through node:http's client: on this 2-core host that client took about as much
// CPU per request as the service's GET, competing with the service for the cores; the bench process
// went from 3.1–3.5 to 1.9 s of CPU per 12-second window at 2,000 GETs/s (2026-11-28).
import { Worker } from 'node:worker_threads';
import { histogramOf } from './paired.mjs';

const GENERATOR = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { performance } = require('node:perf_hooks');
const { url, headers, rate, warmupS, durationS, maxInFlight } = workerData;
// Ahead of the service's threads when the host lets it (root, or CAP_SYS_NICE): on two shared cores a
// generator that wakes late counts its own lateness as the service's latency (wrk2's correction).
let priority = 'nice 0 (not raised: ' + process.platform + ')';
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, -10);
  priority = 'nice ' + require('node:os').getPriority(tid);
} catch (error) {
  priority = 'nice 0 (not raised: ' + error.message + ')';
}
const target = new URL(url);
if (target.hostname !== '127.0.0.1') throw new Error('the fixed-rate load targets 127.0.0.1 only');
// One request's bytes, built once: each send is one write on a kept-alive connection.
const request = Buffer.from(
  'GET ' + target.pathname + target.search + ' HTTP/1.1\\r\\nHost: ' + target.host + '\\r\\n' +
    Object.entries(headers).map(([k, v]) => k + ': ' + v + '\\r\\n').join('') + '\\r\\n',
  'latin1',
);
const HEAD_END = Buffer.from('\\r\\n\\r\\n');
const IDLE_REUSE_MS = 1000;
const latencies = [];
// How late each measured request went out (its share of the latency that is the generator's own).
const lateness = [];
let errors = 0;
let dropped = 0;
let inFlight = 0;
const idle = [];
const open = new Set();
const begin = performance.now();
const measuredFrom = begin + warmupS * 1000;
const end = measuredFrom + durationS * 1000;
const interval = 1000 / rate;
let sent = 0;
let finished = false;
function settle(conn, ok) {
  const { intended, measured } = conn.current;
  conn.current = null;
  inFlight--;
  if (measured) {
    if (ok) latencies.push(performance.now() - intended);
    else errors++;
  }
}
/** A kept-alive connection with at most one request in flight, answers read by their Content-Length. */
function connect() {
  const conn = { socket: net.connect(Number(target.port), target.hostname), current: null, buffer: Buffer.alloc(0) };
  conn.socket.setNoDelay(true);
  open.add(conn);
  conn.socket.on('data', (chunk) => {
    conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk]);
    const head = conn.buffer.indexOf(HEAD_END);
    if (head < 0 || !conn.current) return;
    const text = conn.buffer.toString('latin1', 0, head);
    const length = /\\r\\ncontent-length: *(\\d+)/i.exec(text);
    if (!length) {
      settle(conn, false); // chunked or no length: not what this generator reads
      conn.socket.destroy();
      return maybeDone();
    }
    const total = head + 4 + Number(length[1]);
    if (conn.buffer.length < total) return;
    conn.buffer = conn.buffer.subarray(total);
    settle(conn, text.startsWith('HTTP/1.1 200'));
    if (/\\r\\nconnection: *close/i.test(text)) conn.socket.destroy();
    else {
      conn.idleSince = performance.now();
      idle.push(conn);
    }
    maybeDone();
  });
  conn.socket.on('error', () => undefined);
  conn.socket.on('close', () => {
    open.delete(conn);
    const at = idle.indexOf(conn);
    if (at >= 0) idle.splice(at, 1);
    if (conn.current) {
      settle(conn, false);
      maybeDone();
    }
  });
  return conn;
}
/**
 * The connection used last, unless it has been idle long enough that the server may be closing it
 * (its keep-alive timeout, 5 s by default): a request written as it closes would count as an error.
 */
function reusable() {
  const now = performance.now();
  while (idle.length > 0) {
    const conn = idle.pop();
    if (now - conn.idleSince < IDLE_REUSE_MS) return conn;
    conn.socket.destroy();
  }
  return undefined;
}
function send(intended) {
  const measured = intended >= measuredFrom;
  if (measured) lateness.push(performance.now() - intended);
  if (inFlight >= maxInFlight) {
    if (measured) dropped++;
    return;
  }
  inFlight++;
  const conn = reusable() ?? connect();
  conn.current = { intended, measured };
  conn.socket.write(request);
}
function maybeDone() {
  if (!finished || inFlight > 0) return;
  for (const conn of open) conn.socket.destroy();
  parentPort.postMessage({ latencies, lateness, errors, dropped, seconds: durationS, priority });
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
    worker.once('message', ({ latencies, lateness, errors, dropped, seconds, priority }) => {
      void worker.terminate();
      const sorted = Float64Array.from(latencies).sort();
      const late = Float64Array.from(lateness).sort();
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
        // For quantiles of several windows pooled (paired.mjs pooledVerdict).
        histogram: histogramOf(sorted),
        // The generator's own lateness in sending (its thread not scheduled on time), p99 and max.
        lateP99: quantile(late, 0.99),
        lateMax: late.length > 0 ? late[late.length - 1] : NaN,
        priority,
      });
    });
  });
}
