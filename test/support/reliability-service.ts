import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { httpRequest, ServiceProcess, startService, waitForExit } from './service-process';

export { ensureBuilt, httpRequest, waitForExit } from './service-process';

export type RunningService = ServiceProcess;

/** The shared service starter (kept under this name for the reliability tests). */
export const startReliabilityService = startService;

/** Stops the service (SIGTERM: graceful; SIGKILL: a crash) and waits until it is gone. */
export async function stopService(s: RunningService, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill(signal);
  await waitForExit(s.child);
}

/** Memory figures of the spawned service right after a full GC, in bytes (see reliability-gc-hook.cjs). */
export interface MemoryAfterGc {
  /** Resident set size of the whole process. */
  rss: number;
  /** Live JS objects. */
  heapUsed: number;
  /** V8's heap as reserved (includes the young generation's empty semi-space). */
  heapTotal: number;
  /** The part of V8's heap that is resident; `rss - heapResident` is the memory outside V8's heap. */
  heapResident: number;
  /** V8's young generation, reserved and resident. */
  newSpace: number;
  newSpaceResident: number;
  /** C++ memory tied to JS objects, Buffers' backing stores included. */
  external: number;
  /** Backing stores of ArrayBuffers and Buffers (part of `external`). */
  arrayBuffers: number;
}

/** NODE_OPTIONS that let `memoryAfterGc` ask the spawned service for a full GC (test-only preload). */
export const GC_HOOK_NODE_OPTIONS = `--expose-gc --require ${join(__dirname, 'reliability-gc-hook.cjs')}`;

/** A full GC in the service (started with GC_HOOK_NODE_OPTIONS), then its memory figures. */
export function memoryAfterGc(s: RunningService, timeoutMs = 30_000): Promise<MemoryAfterGc> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      s.child.stdout!.off('data', onData);
      reject(
        new Error(
          `the service did not report its memory (started without GC_HOOK_NODE_OPTIONS?); seen ${seen.length} chars, in output: ${s.output().includes('reliability-gc')}, exit ${s.child.exitCode} ${s.child.signalCode}`,
        ),
      );
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /reliability-gc (\{[^\n]*\})\n/.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      s.child.stdout!.off('data', onData);
      resolve(JSON.parse(m[1]!) as MemoryAfterGc);
    };
    s.child.stdout!.on('data', onData);
    s.child.kill('SIGWINCH');
  });
}

/** Resident set size of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, whose fields each test checks
export type Json = any;

export interface JsonResponse<T = Json> {
  status: number;
  body: T;
  text: string;
}

/** JSON over node:http (no keep-alive); the body is parsed when it is JSON. */
export async function jsonRequest<T = Json>(
  url: string,
  options: { method?: string; headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const r = await httpRequest(url, {
    method: options.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  let parsed: unknown = undefined;
  try {
    parsed = r.body === '' ? undefined : JSON.parse(r.body);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, body: parsed as T, text: r.body };
}

/** Runs `fn` over `items` with at most `concurrency` at a time; results in input order. */
export async function inPool<I, O>(items: I[], concurrency: number, fn: (item: I, index: number) => Promise<O>) {
  const out = new Array<O>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /**
   * False when the connection ended before the whole answer arrived: the server closed it while the
   * client was still sending a body it never read (a GET with a 1.5 MB body), and the reset that
   * follows can drop answer bytes the client's kernel already held. The status line is still the
   * server's; the body is only a prefix.
   */
  complete: boolean;
}

/**
 * Sends bytes as they are (broken encodings, NUL bytes, duplicate headers: whatever the caller
 * wrote) on a fresh connection to 127.0.0.1 and parses the HTTP/1.1 answer. Bounded by a timeout:
 * a request the server never answers is a failure of the test, not a hang.
 */
export function rawRequest(port: number, request: Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      try {
        const all = Buffer.concat(chunks);
        resolve({ ...parseResponse(all), complete: isComplete(all) || !framedByLength(all) });
      } catch (e) {
        reject(e as Error);
      }
    };
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (isComplete(Buffer.concat(chunks))) finish();
    });
    socket.on('end', () => finish());
    socket.on('error', (e) => (chunks.length > 0 ? finish() : finish(e)));
    socket.write(request);
  });
}

function splitHead(buf: Buffer): { head: string; rest: Buffer } | null {
  const i = buf.indexOf('\r\n\r\n');
  if (i < 0) return null;
  return { head: buf.subarray(0, i).toString('latin1'), rest: buf.subarray(i + 4) };
}

function headersOf(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const c = line.indexOf(':');
    if (c > 0) {
      const k = line.slice(0, c).trim().toLowerCase();
      headers[k] = headers[k] === undefined ? line.slice(c + 1).trim() : `${headers[k]}, ${line.slice(c + 1).trim()}`;
    }
  }
  return headers;
}

/** Whether the answer says where it ends (length or chunks), so a short read can be told apart. */
function framedByLength(buf: Buffer): boolean {
  const parts = splitHead(buf);
  if (!parts) return false;
  const h = headersOf(parts.head);
  return h['content-length'] !== undefined || /chunked/i.test(h['transfer-encoding'] ?? '');
}

function isComplete(buf: Buffer): boolean {
  const parts = splitHead(buf);
  if (!parts) return false;
  const h = headersOf(parts.head);
  if (h['content-length'] !== undefined) return parts.rest.length >= Number(h['content-length']);
  if (/chunked/i.test(h['transfer-encoding'] ?? ''))
    return parts.rest.includes('\r\n0\r\n\r\n') || parts.rest.subarray(0, 5).toString() === '0\r\n\r\n';
  const status = Number(parts.head.split(' ')[1]);
  return status === 204 || status === 304; // otherwise the body ends with the connection
}

function parseResponse(buf: Buffer): Omit<RawResponse, 'complete'> {
  const parts = splitHead(buf);
  if (!parts) throw new Error(`not an HTTP response: ${JSON.stringify(buf.subarray(0, 200).toString('latin1'))}`);
  const status = Number(parts.head.split(' ')[1]);
  const headers = headersOf(parts.head);
  let body = parts.rest;
  if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return { status, headers, body };
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(i, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * A digest per read-model table (the projection checkpoints excluded): every row, in a canonical
 * order, so two databases with the same content give the same digests whatever their insertion
 * order or physical layout.
 */
export function readModelDigests(db: Database.Database): Record<string, string> {
  const tables = (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{ name: string }>
  )
    .map((t) => t.name)
    .filter((n) => n !== 'projection_checkpoints');
  const out: Record<string, string> = {};
  for (const table of tables) {
    const columns = (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name);
    const rows = (db.prepare(`SELECT * FROM "${table}"`).raw().all() as unknown[][]).map((r) =>
      JSON.stringify(r, (_k, v: unknown) =>
        Buffer.isBuffer(v) ? `hex:${v.toString('hex')}` : typeof v === 'bigint' ? `${v}n` : v,
      ),
    );
    rows.sort();
    const h = createHash('sha256').update(JSON.stringify(columns));
    for (const r of rows) h.update(r).update('\n');
    out[table] = `${rows.length}:${h.digest('hex').slice(0, 16)}`;
  }
  return out;
}

/** Digests of a read-model file, opened read-only. */
export function readModelFileDigests(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return readModelDigests(db);
  } finally {
    db.close();
  }
}
