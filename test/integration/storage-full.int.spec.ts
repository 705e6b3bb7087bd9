import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureBuilt,
  freePort,
  serviceEnv,
  startService,
  waitForExit,
  type ServiceProcess,
} from '../support/service-process';

const ADMIN = 'storage-full-admin-key-0123456789';
/** The data directory's file system: small, so that a filler file takes the rest of it. */
const TMPFS_SIZE = '16m';

/**
 * A real full disk: DATA_DIR is a tmpfs of its own, mounted in a user + mount namespace (no root
 * needed, nothing mounted on the host). A holder process keeps the namespace (and the tmpfs) alive
 * across the service's restart; the service runs in it through nsenter, and the test reaches the
 * tmpfs through /proc/<holder>/root.
 */
const namespacesWork =
  spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt 2>/dev/null || exit 3'], {
    stdio: 'ignore',
  }).status === 0 && spawnSync('nsenter', ['--version'], { stdio: 'ignore' }).status === 0;
if (!namespacesWork) {
  console.warn('storage-full test skipped: this machine cannot mount a tmpfs in a user namespace (unshare -rm)');
}
const describeIfNamespaces = namespacesWork ? describe : describe.skip;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(url: string, method = 'GET', body?: unknown): Promise<Answer> {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Polls readiness until it answers `status`, for at most `deadlineMs` (the recovery must take seconds). */
async function readyWithin(url: string, deadlineMs: number): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(5000) })).status;
    if (last === 200) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

/** Every account the service lists (paged). */
async function listedDomains(url: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let after = 0;
  for (let page = 0; page < 100; page++) {
    const r = await call(`${url}/admin/v1/accounts?limit=1000&after=${after}`);
    expect(r.status).toBe(200);
    const results = r.body.results as Array<{ hubId: number; domain: string }>;
    for (const a of results) out.set(a.domain, a.hubId);
    const next = (r.body.paging as { next?: { after: string } } | undefined)?.next?.after;
    if (!next) break;
    after = Number(next);
  }
  return out;
}

/** Writes to `file` until the file system refuses (ENOSPC); returns the bytes written. */
function fillUp(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  const small = Buffer.alloc(4096, 1);
  let written = 0;
  try {
    for (const buffer of [chunk, small]) {
      for (;;) {
        try {
          written += writeSync(fd, buffer);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

describeIfNamespaces('a full disk under write load (DATA_DIR on a small tmpfs)', () => {
  let mountPoint: string;
  let holder: ChildProcess;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    ensureBuilt();
    mountPoint = mkdtempSync(join(tmpdir(), 'hs-full-'));
    holder = spawn(
      'unshare',
      [
        '-rm',
        'sh',
        '-c',
        `mount -t tmpfs -o size=${TMPFS_SIZE},mode=0700 tmpfs "$0" && echo mounted && exec cat`,
        mountPoint,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (c: Buffer) => (c.toString().includes('mounted') ? resolve() : undefined));
      holder.once('exit', (code) => reject(new Error(`the namespace holder exited with ${code}`)));
    });
  }, 180_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGKILL');
      await waitForExit(service.child);
    }
    holder?.stdin?.end(); // cat ends: the namespace and its tmpfs go away
    if (holder) await waitForExit(holder);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers 507 while full, loses nothing acknowledged, records nothing refused, and heals without a restart', async () => {
    const env = { DATA_DIR: mountPoint, SEED: 'none', ADMIN_API_KEY: ADMIN, RATE_LIMIT_ENABLED: 'false' };
    const launcher = ['nsenter', '-t', String(holder.pid), '-U', '-m', '--preserve-credentials'];
    const filler = `/proc/${holder.pid}/root${mountPoint}/filler`;
    service = await startService(env, launcher);
    const url = service.url;

    const answers = new Map<string, Answer>();
    let n = 0;
    const post = async () => {
      const domain = `full-${n++}.example.com`;
      const r = await call(`${url}/admin/v1/accounts`, 'POST', { domain, tier: 'starter' });
      answers.set(domain, r);
      return r;
    };
    // Four clients writing; the disk fills up under them and they go on until it refused 20 writes.
    let full = false;
    let refused = 0;
    let sent = 0;
    const client = async () => {
      while (sent < 3000 && refused < 20) {
        sent += 1;
        const r = await post();
        if (r.status === 507) refused += 1;
        if (!full && answers.size >= 40) {
          full = true;
          expect(fillUp(filler)).toBeGreaterThan(0);
        }
      }
    };
    await Promise.all([client(), client(), client(), client()]);
    expect(full).toBe(true);
    expect(refused).toBeGreaterThanOrEqual(20);

    const statuses = [...answers.values()].map((a) => a.status);
    expect(statuses.filter((s) => s !== 201 && s !== 507)).toEqual([]); // never a 500
    const refusal = [...answers.values()].find((a) => a.status === 507)!;
    expect(refusal.headers.get('retry-after')).toBe('5');
    expect(refusal.headers.get('content-type')).toMatch(/application\/json/);
    expect(refusal.body).toEqual({
      status: 'error',
      category: 'INSUFFICIENT_STORAGE',
      subCategory: expect.stringMatching(/^STORAGE_/),
      message: expect.stringContaining('cannot store data now'),
      correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    // Space returns: readiness recovers by itself within seconds, and writes succeed again.
    unlinkSync(filler);
    expect(await readyWithin(url, 15_000)).toBe(200);
    for (let i = 0; i < 5; i++) expect((await post()).status).toBe(201);

    const check = async (where: string, at: string) => {
      const listed = await listedDomains(at);
      for (const [domain, a] of answers) {
        if (a.status === 201) expect([where, domain, listed.get(domain)]).toEqual([where, domain, a.body.hubId]);
        else expect([where, domain, listed.has(domain)]).toEqual([where, domain, false]);
      }
      expect(listed.size).toBe(statuses.filter((s) => s === 201).length + 5);
    };
    await check('before the restart', url);
    expect(service.output()).not.toContain('unhandled error');

    service.child.kill('SIGTERM');
    await waitForExit(service.child);
    service = await startService(env, launcher);
    expect(await readyWithin(service.url, 15_000)).toBe(200);
    await check('after the restart', service.url);
    service.child.kill('SIGTERM');
    await waitForExit(service.child);
  }, 180_000);
});

describeIfNamespaces('a full disk at start (DATA_DIR on a full tmpfs)', () => {
  it('fresh or with data: one sentence on stderr, exit status 1, no stack trace, no empty key file', async () => {
    ensureBuilt();
    const mountPoint = mkdtempSync(join(tmpdir(), 'hs-full-start-'));
    const port = await freePort();
    // In one mount namespace: a first start writes data and stops; the disk is filled; two more
    // starts (one with the keys removed, so they would have to be generated) must both refuse.
    const node = process.execPath;
    const main = join(__dirname, '..', '..', 'dist', 'main.js');
    const script = [
      `mount -t tmpfs -o size=4m,mode=0700 tmpfs "$M"`,
      `timeout -s INT 20 "$NODE" "$MAIN" >/dev/null 2>&1; echo "first=$?"`,
      `dd if=/dev/zero of="$M/filler" bs=64k 2>/dev/null; dd if=/dev/zero of="$M/filler2" bs=512 2>/dev/null`,
      `"$NODE" "$MAIN" 2>"$M.err1" >/dev/null; echo "second=$?"`,
      `rm -f "$M/signing-key.json" "$M/session-key.json" "$M/instance.lock"`,
      `"$NODE" "$MAIN" 2>"$M.err2" >/dev/null; echo "third=$?"; ls -A "$M" | tr '\\n' ' '`,
    ].join('\n');
    try {
      const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], {
        env: serviceEnv(port, { DATA_DIR: mountPoint, SEED: 'demo', M: mountPoint, NODE: node, MAIN: main }),
        encoding: 'utf8',
        timeout: 150_000,
      });
      expect(r.stdout).toContain('first=');
      expect(r.stdout).toContain('second=1');
      expect(r.stdout).toContain('third=1');
      expect(r.stdout).not.toMatch(/signing-key\.json/); // not left behind empty
      for (const err of [`${mountPoint}.err1`, `${mountPoint}.err2`]) {
        const lines = readFileSync(err, 'utf8').trim().split('\n');
        expect(lines).toEqual([
          expect.stringMatching(
            new RegExp(
              `^The disk of DATA_DIR ${mountPoint} is full \\([^)]*\\): free some space, or set DATA_DIR to a directory on another disk\\.$`,
            ),
          ),
        ]);
      }
    } finally {
      rmSync(mountPoint, { recursive: true, force: true });
      rmSync(`${mountPoint}.err1`, { force: true });
      rmSync(`${mountPoint}.err2`, { force: true });
    }
  }, 180_000);
});
