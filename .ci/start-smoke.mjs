// CI: the README's `npm start`, as a person runs it, under the machine's own node. Waits for the demo
// banner, asks /health/ready, checks that nothing printed a warning, then Ctrl-C (SIGINT to the
// process group, as a terminal sends it) and waits for the graceful shutdown. Bounded throughout.
/* global AbortSignal */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

const STARTUP_MS = 300_000; // a first start builds (tsc) and may fetch Node 24
const SHUTDOWN_MS = 30_000;
const WARNING = /deprecat|warning|FSTDEP|FSTWRN/i;

const port = await new Promise((resolve, reject) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
  s.on('error', reject);
});

console.log(`start-smoke: PORT=${port} npm start   (under node ${process.version})`);
const child = spawn('npm', ['start'], {
  detached: true, // its own process group, to get Ctrl-C as a terminal sends it
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, PORT: String(port) },
});
let stdout = '';
let stderr = '';
const waiters = new Set();
const changed = () => waiters.forEach((w) => w());
child.stdout.on('data', (c) => {
  process.stdout.write(c);
  stdout += c;
  changed();
});
child.stderr.on('data', (c) => {
  process.stderr.write(c);
  stderr += c;
  changed();
});
let exit = null;
const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve((exit = { code, signal }))));
exited.then(changed);

function fail(message) {
  console.error(`start-smoke: FAILED: ${message}`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  process.exit(1);
}

function waitFor(test, ms, what) {
  return new Promise((resolve) => {
    const check = () => {
      if (test()) done(resolve);
      else if (exit) done(() => fail(`npm start ended (${JSON.stringify(exit)}) before ${what}`));
    };
    const timer = setTimeout(() => done(() => fail(`no ${what} within ${ms / 1000} s`)), ms);
    const done = (f) => {
      clearTimeout(timer);
      waiters.delete(check);
      f();
    };
    waiters.add(check);
    check();
  });
}

await waitFor(() => /Admin API key +\S+\n/.test(stdout), STARTUP_MS, 'demo banner');
const ready = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(10_000) });
if (ready.status !== 200) fail(`/health/ready answered ${ready.status}`);
const logLines = stdout.slice(0, stdout.indexOf('\n  HubSpot public-app service')).split('\n');
if (!logLines.some((l) => l.includes(`listening on http://127.0.0.1:${port}`)))
  fail('no "listening on" line before the banner');
if (
  Number(process.versions.node.split('.')[0]) < 24 &&
  !/is older than 24: (running under|fetching) Node 24/.test(stderr)
) {
  fail('the machine node is older than 24 but npm start did not say it moved to Node 24');
}

process.kill(-child.pid, 'SIGINT');
await waitFor(() => exit !== null, SHUTDOWN_MS, 'exit after Ctrl-C');
if (!stdout.includes('event store and read models closed')) fail('no graceful shutdown after Ctrl-C');
const warnings = stderr.split('\n').filter((l) => WARNING.test(l));
if (warnings.length > 0) fail(`warnings on stderr:\n${warnings.join('\n')}`);
console.log(`start-smoke: OK (banner, /health/ready 200, no warning, clean shutdown on Ctrl-C)`);
