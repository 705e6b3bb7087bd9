import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/**
 * A real redis-server (Debian's `redis-server` package; `.ci/run` installs it) on a free loopback
 * port, nothing written to disk, stopped by `stop()`. Tests that need one skip when it is missing,
 * saying why (`REDIS_MISSING`).
 */
export function findRedisServer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export const REDIS_MISSING =
  'redis-server is not installed (apt-get install -y redis-server); the shared counter store needs a real one';

/** `describe`, or `describe.skip` with the reason printed once, when redis-server is missing. */
export function describeWithRedis(name: string, body: () => void): void {
  if (findRedisServer() === null) {
    describe.skip(`${name} (skipped: ${REDIS_MISSING})`, body);
    process.stderr.write(`skipped "${name}": ${REDIS_MISSING}\n`);
    return;
  }
  describe(name, body);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export class RedisServer {
  private child: ChildProcess | null = null;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts, on the same port) and resolves once it accepts connections. */
  async start(port?: number): Promise<void> {
    const binary = findRedisServer();
    if (binary === null) throw new Error(REDIS_MISSING);
    this.port = port ?? (await freePort());
    const child = spawn(
      binary,
      ['--save', '', '--appendonly', 'no', '--port', String(this.port), '--bind', '127.0.0.1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
  }

  /** Freezes it (SIGSTOP): connections stay open and nothing answers, like a hung server. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Stops it (SIGTERM) and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
