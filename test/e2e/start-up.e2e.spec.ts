import {
  closeSync,
  existsSync,
  openSync,
  writeSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
  unlinkSync,
} from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort, httpRequest } from '../support/service-process';
import { killLeftovers, personEnv, rows, run, Run, stripAnsi } from '../support/first-run';

/**
 * `npm start` as a person first meets it (scripts/start.mjs, what `npm start` runs, on a fresh
 * DATA_DIR on 127.0.0.1): no warnings, readable log lines on a terminal and JSON lines into a
 * pipe, Nest's route-mapping lines only at debug, and the demo banner within the first 80×24
 * screen, right after "listening". And when it cannot start for a reason a person can fix: one
 * sentence and a non-zero exit, never a stack trace.
 */
const START = ['scripts/start.mjs'];
const WARNING = /deprecat|warning|FSTDEP|FSTWRN/i;
const BANNER_END = /Admin API key +\S+\r?\n/;

let dataDirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'hs-start-'));
  dataDirs.push(d);
  return d;
};

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await killLeftovers();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  dataDirs = [];
});

async function start(env: Record<string, string>): Promise<{ r: Run; port: number }> {
  const port = await freePort();
  const r = run(
    process.execPath,
    START,
    personEnv({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir(), ...env }),
  );
  return { r, port };
}

async function stop(r: Run): Promise<void> {
  r.child.kill('SIGINT'); // Ctrl-C
  const end = await r.ended();
  expect(end.code === 0 || end.signal === 'SIGINT').toBe(true);
}

describe('npm start, first run', () => {
  it('on a terminal: no warning, readable lines, and the banner on the first screen right after "listening"', async () => {
    const { r, port } = await start({ LOG_FORMAT: 'pretty' });
    await r.waitFor(BANNER_END);
    const screen = stripAnsi(r.screen());
    const upToBanner = screen.slice(0, screen.search(BANNER_END) + screen.match(BANNER_END)![0].length);

    expect(
      r
        .stderr()
        .split('\n')
        .filter((l) => WARNING.test(l)),
    ).toEqual([]);
    // The screen itself in the failure message: which line pushed the banner off the first screen.
    if (rows(upToBanner) > 24) throw new Error(`the banner ends on row ${rows(upToBanner)}:\n${upToBanner}`);
    const lines = upToBanner.split('\n');
    const listening = lines.findIndex((l) => l.includes(`listening on http://127.0.0.1:${port} (event store: sqlite)`));
    const title = lines.findIndex((l) => l.includes('HubSpot public-app service — demo'));
    expect(listening).toBeGreaterThanOrEqual(0);
    // Only a blank line between "listening" and the banner.
    expect(lines.slice(listening + 1, title).every((l) => l.trim() === '')).toBe(true);
    // Every log line before it is a readable one, none of Nest's route mapping.
    const logLines = lines.slice(0, listening + 1).filter((l) => l.trim() !== '');
    for (const l of logLines) expect(l).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN): /);
    expect(screen).not.toMatch(/RouterExplorer|RoutesResolver|InstanceLoader|Mapped \{|dependencies initialized/);

    expect((await httpRequest(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    await stop(r);
    expect(
      r
        .stderr()
        .split('\n')
        .filter((l) => WARNING.test(l)),
    ).toEqual([]);
  }, 90_000);

  const scriptCommand = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
  (scriptCommand ? it : it.skip)(
    'on a real terminal (through script(1)), LOG_FORMAT unset: readable, coloured lines',
    async () => {
      const port = await freePort();
      const command = [process.execPath, ...START].map((a) => `'${a}'`).join(' ');
      const r = run(
        scriptCommand!,
        ['-q', '-e', '-c', command, '/dev/null'],
        personEnv({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir(), TERM: 'xterm-256color' }),
      );
      await r.waitFor(BANNER_END);
      const screen = r.screen();
      expect(screen).toContain('\u001b[32mINFO\u001b[39m'); // the level, in green
      expect(stripAnsi(screen)).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on /m);
      expect(stripAnsi(screen)).not.toMatch(/^\{"level"/m);
      expect(
        stripAnsi(screen)
          .split('\n')
          .filter((l) => WARNING.test(l)),
      ).toEqual([]);
      r.child.kill('SIGTERM'); // script(1) ends its session
      await r.ended();
    },
    90_000,
  );
  if (!scriptCommand) process.stdout.write('real-terminal start test skipped: no script(1) on this machine\n');

  it('into a pipe: JSON lines, and Nest start-up lines at debug only', async () => {
    const { r } = await start({});
    await r.waitFor(BANNER_END);
    const before = r.stdout().slice(0, r.stdout().indexOf('\n  HubSpot public-app service'));
    const entries = before
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { level: number; msg: string; context?: string });
    expect(entries.at(-1)!.msg).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+ \(event store: sqlite\)$/);
    expect(entries.filter((e) => e.context === 'RouterExplorer')).toEqual([]);
    expect(r.stderr()).toBe('');
    await stop(r);

    const debug = await start({ LOG_LEVEL: 'debug' });
    await debug.r.waitFor(BANNER_END);
    const mapped = debug.r
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"context":"RouterExplorer"'))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(mapped.length).toBeGreaterThan(20);
    expect(mapped.every((e) => e.level === 20)).toBe(true);
    expect(mapped.map((e) => e.msg)).toContain('Mapped {/health/ready, GET} route');
    await stop(debug.r);
  }, 90_000);
});

describe('npm start that cannot start: one sentence, exit status 1, no stack trace', () => {
  async function failedStart(env: Record<string, string>) {
    const port = env.PORT ?? String(await freePort());
    const r = run(process.execPath, START, personEnv({ HOST: '127.0.0.1', DATA_DIR: dataDir(), ...env, PORT: port }));
    const end = await r.ended(60_000);
    expect(end).toEqual({ code: 1, signal: null });
    expect(r.screen()).not.toMatch(/^\s+at /m);
    const errLines = r.stderr().trim().split('\n');
    expect(errLines).toHaveLength(1);
    return errLines[0]!;
  }

  it('port already in use', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      expect(await failedStart({ PORT: String(port) })).toBe(
        `Port ${port} on 127.0.0.1 is already in use: stop the program that uses it, or start on another port (e.g. PORT=${port + 1}).`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 90_000);

  it('DATA_DIR that cannot be written', async () => {
    const dir = unwritableDir();
    if (dir === null) {
      process.stdout.write('unwritable DATA_DIR test skipped: no directory this user cannot write was found\n');
      return;
    }
    expect(await failedStart({ DATA_DIR: dir })).toMatch(
      new RegExp(
        `^DATA_DIR ${dir} cannot be written \\((EACCES|EPERM|EROFS|SQLITE_CANTOPEN|SQLITE_READONLY)[^)]*\\): set DATA_DIR to a directory this user can write\\.$`,
      ),
    );
  }, 90_000);

  it('DATA_DIR that is a file', async () => {
    const file = join(dataDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    expect(await failedStart({ DATA_DIR: file })).toMatch(
      new RegExp(
        `^DATA_DIR ${file} is not a directory \\((EEXIST|ENOTDIR)[^)]*\\): set DATA_DIR to a directory this user can write\\.$`,
      ),
    );
  }, 90_000);

  it('a second service on a DATA_DIR in use is refused; after kill -9 of the first, the next one starts', async () => {
    const dir = dataDir();
    const first = await start({ DATA_DIR: dir });
    await first.r.waitFor('listening on', 60_000);
    expect(await failedStart({ DATA_DIR: dir })).toBe(
      `DATA_DIR ${dir} is in use by another running instance of this service: stop that one first, or give this one its own DATA_DIR.`,
    );
    expect((await httpRequest(`http://127.0.0.1:${first.port}/health/ready`)).status).toBe(200);
    first.r.child.kill('SIGKILL');
    await first.r.ended();
    const next = await start({ DATA_DIR: dir });
    await next.r.waitFor('listening on', 60_000);
    await stop(next.r);
  }, 120_000);

  it.each(['missing', 'zero-length'])(
    '%s events.sqlite while the read models and the archive show a history: refused, no file touched',
    async (how) => {
      const dir = dataDir();
      const first = await start({ DATA_DIR: dir, AUDIT_RETENTION_DAYS: '0' });
      await first.r.waitFor('listening on', 60_000);
      await stop(first.r);
      for (const f of readdirSync(dir).filter((f) => f.startsWith('events.sqlite'))) rmSync(join(dir, f));
      if (how === 'zero-length') writeFileSync(join(dir, 'events.sqlite'), '');
      const before = snapshot(dir);
      expect(await failedStart({ DATA_DIR: dir })).toBe(
        `${join(dir, 'events.sqlite')} is ${how === 'missing' ? 'missing' : 'empty'}, but readmodels.sqlite in DATA_DIR shows that an event history existed: restore events.sqlite from a backup (no file was changed), or move DATA_DIR away to really start with an empty store.`,
      );
      expect(snapshot(dir)).toEqual(before);

      // Only the archive's manifest left: refused too.
      rmSync(join(dir, 'readmodels.sqlite'));
      mkdirSync(join(dir, 'archive'), { recursive: true });
      writeFileSync(
        join(dir, 'archive', 'manifest.json'),
        JSON.stringify({
          version: 1,
          files: { 'events-2026-01-01.ndjson.gz': { bytes: 0, sha256: '', segments: [] } },
        }),
      );
      expect(await failedStart({ DATA_DIR: dir })).toMatch(
        /, but archive\/manifest\.json in DATA_DIR shows that an event history existed/,
      );
    },
    120_000,
  );

  it.each([
    ['signing-key.json', '{"kid":"k1","secret":""}', '"secret" must be at least 32 bytes once base64-decoded'],
    ['signing-key.json', '{"kid":"k1","secret":"c2hvcnQ="}', '"secret" must be at least 32 bytes once base64-decoded'],
    ['signing-key.json', '', 'it is empty'],
    ['session-key.json', 'not json at all', 'it is not JSON'],
  ])(
    'a key file that is not usable: %s containing %j',
    async (file, content, why) => {
      const dir = dataDir();
      writeFileSync(join(dir, file), content, { mode: 0o600 });
      expect(await failedStart({ DATA_DIR: dir })).toBe(
        `${join(dir, file)} is not a usable key file (${why}): restore it from a backup, or delete it to have a new key generated (tokens or sessions made with the old key then stop working).`,
      );
    },
    90_000,
  );

  it('events.sqlite with a damaged page in the middle: found by the check at start', async () => {
    const dir = dataDir();
    const first = await start({ DATA_DIR: dir });
    await first.r.waitFor('listening on', 60_000);
    await stop(first.r);
    const file = join(dir, 'events.sqlite');
    const pages = statSync(file).size / 4096;
    expect(pages).toBeGreaterThan(4);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(pages / 2) * 4096);
    closeSync(fd);
    expect(await failedStart({ DATA_DIR: dir })).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a readable event store \\(SQLITE_CORRUPT: integrity check failed at start: .*\\): restore it from a backup, or move it away to start with an empty store\\.$`,
      ),
    );
  }, 120_000);

  it('corrupt events.sqlite', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'events.sqlite'), Buffer.alloc(16_384, 'this is not an SQLite database '));
    expect(await failedStart({ DATA_DIR: dir })).toBe(
      `${join(dir, 'events.sqlite')} is not a readable event store (SQLITE_NOTADB: file is not a database): restore it from a backup, or move it away to start with an empty store.`,
    );
  }, 90_000);
});

/** Every file of `dir` (not the lock file) with its size and modification time. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    if (f.startsWith('instance.lock')) continue;
    const st = statSync(join(dir, f));
    out[f] = `${st.size}:${st.mtimeMs}:${(st.mode & 0o777).toString(8)}`;
  }
  return out;
}

/**
 * A directory this user cannot write: a read-only one of our own, or, for root (whom permission
 * bits do not stop), a directory of sysfs, which refuses new files even to root.
 */
function unwritableDir(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'hs-readonly-'));
  dataDirs.push(dir);
  chmodSync(dir, 0o555);
  if (!canCreateFileIn(dir)) return dir;
  chmodSync(dir, 0o755);
  return existsSync('/sys') && !canCreateFileIn('/sys') ? '/sys' : null;
}

function canCreateFileIn(dir: string): boolean {
  const probe = join(dir, `.hs-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
    unlinkSync(probe);
    return true;
  } catch {
    return false;
  }
}
