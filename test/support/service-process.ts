import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { childEnv } from './child-env';

const ROOT = join(__dirname, '..', '..');

/** Builds dist/ when it is missing or older than src/ (tests that spawn the real service), as `npm start` does. */
export function ensureBuilt(): void {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { spawnSync } from 'node:child_process'; import { ensureBuilt } from './scripts/ensure-built.mjs'; ensureBuilt(spawnSync);",
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('build failed');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  url: string;
  output: () => string;
}

/** The service's environment: never the test run's EVENTSTORE_CONNECTION_STRING unless `env` sets it. */
export function serviceEnv(port: number, env: Record<string, string>): NodeJS.ProcessEnv {
  return childEnv({ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env });
}

/**
 * Starts `node dist/main.js` on 127.0.0.1 and resolves once it logged (at info) that it listens.
 * The start-up timer is cleared then, so a test may run for minutes; output is kept bounded
 * (a sweep of thousands of requests logs a line each).
 */
export async function startService(env: Record<string, string>, launcher: string[] = []): Promise<ServiceProcess> {
  const port = await freePort();
  // `launcher`: a command that runs node in another context (e.g. nsenter into a mount namespace).
  const [command, ...args] = [...launcher, process.execPath, join(ROOT, 'dist', 'main.js')];
  const child = spawn(command!, args, {
    env: serviceEnv(port, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start within 60 s:\n${out.slice(-5000)}`));
    }, 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out.slice(-5000)}`));
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (out.includes('listening on http://')) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve();
      }
    });
    child.stderr!.on('data', keep);
    child.once('exit', onExit);
  });
  return { child, pid: child.pid!, port, url: `http://127.0.0.1:${port}`, output: () => out };
}

export function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** A small HTTP client on node:http (no keep-alive), bounded by a timeout. */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false, timeout: options.timeoutMs ?? 10_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(options.body);
  });
}
