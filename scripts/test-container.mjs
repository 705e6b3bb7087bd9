// `npm run test:container`: builds docker/Dockerfile with podman and tests the image the way it is
// run, from the host. No Docker engine and no image registry needed:
//
// - installs podman and friends from Debian when missing (as root, or with passwordless sudo);
// - podman's state lives in its own folder (CONTAINER_TEST_HOME, default ~/.cache/hubspot-container):
//   runtime runc, cgroupfs, ulimits at the host's hard nofile, nothing in the machine's own podman
//   configuration or storage is touched;
// - the base image (docker.io/library/node:24-slim): pulled when a registry answers, else made here
//   (debootstrap --variant=minbase bookworm + Node 24 and npm 11 from the npm registry + a `node`
//   user 1000:1000, `podman import`). It stays in that folder as a cache for the next run
//   (CONTAINER_TEST_KEEP_BASE=0 removes it and the folder at the end);
// - builds with `npm ci` only, npm's registry and CA handed in as build secrets;
// - runs the image hardened as docker/docker-compose.yml runs it, and checks: the numeric user,
//   the HEALTHCHECK, the README's "Try it" flow over HTTP, `npm run audit:verify` through exec,
//   SIGTERM -> exit 0 within 10 s, data and tokens across container removal, the volume's modes,
//   the image's contents; and renders the compose file with docker-compose (no engine needed).
// - removes every container, volume and image it made (leftovers of an interrupted run too), within
//   a bounded time: every command has a time limit.
/* global AbortSignal */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { appendFileSync, closeSync, openSync, readdirSync, renameSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE24_VERSION, provisionNode24 } from './with-node24.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(ROOT);
const STATE = resolve(process.env.CONTAINER_TEST_HOME || join(homedir(), '.cache', 'hubspot-container'));
const BASE_IMAGE = 'docker.io/library/node:24-slim';
const IMAGE = 'localhost/hubspot-public-app:container-test';
const LABEL = 'hubspot-public-app.container-test=1';
const VOLUME = 'hubspot-ct-data';
const KEEP_BASE = process.env.CONTAINER_TEST_KEEP_BASE !== '0';
const KEEP_IMAGE = process.env.CONTAINER_TEST_KEEP_IMAGE === '1';
const SUDO = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
// Debian packages: podman and what it needs here; debootstrap for the local base image;
// docker-compose to render the compose file.
const PACKAGES = [
  'podman',
  'buildah',
  'runc',
  'conmon',
  'fuse-overlayfs',
  'slirp4netns',
  'uidmap',
  'catatonit',
  'containernetworking-plugins',
  'iptables',
  'debootstrap',
  'docker-compose',
];

const started = Date.now();
const say = (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s] ${line}`);
let passed = 0;
const failures = [];
function check(name, ok, detail = '') {
  if (ok) passed += 1;
  else failures.push(`${name}${detail ? `: ${detail}` : ''}`);
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? ` (${detail})` : ''}`);
  return ok;
}

const tail = (text, n = 15) => `${text ?? ''}`.trim().split('\n').slice(-n).join('\n');
const podmanEnv = {
  CONTAINERS_CONF: join(STATE, 'containers.conf'),
  CONTAINERS_STORAGE_CONF: join(STATE, 'storage.conf'),
};

/** A command to its end, bounded in time; throws a sentence unless `allowFail`. */
function sh(command, args, { timeout = 120_000, input, allowFail = false, log } = {}) {
  const [cmd, ...pre] =
    command === 'podman' || command === 'apt-get' || command === 'debootstrap' ? [...SUDO, command] : [command];
  // A long step writes to its log file as it goes (`tail -f` it); its end is read back from there.
  const fd = log ? openSync(log, 'w') : undefined;
  const r = spawnSync(cmd, [...pre, ...args], {
    encoding: 'utf8',
    timeout,
    input,
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, ...podmanEnv, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: [input === undefined ? 'ignore' : 'pipe', fd ?? 'pipe', fd ?? 'pipe'],
  });
  if (fd !== undefined) {
    closeSync(fd);
    r.stdout = readFileSync(log, 'utf8');
    r.stderr = '';
  }
  if (!allowFail && r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
    throw new Error(`${command} ${args.slice(0, 4).join(' ')} failed (${why}):\n${tail(`${r.stdout}\n${r.stderr}`)}`);
  }
  return r;
}
const podman = (args, options) => sh('podman', args, options);

// --- tools and podman's configuration ---

function ensureTools() {
  const missing = PACKAGES.filter(
    (p) => spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout !== 'install ok installed',
  );
  if (missing.length === 0) return;
  say(`installing from Debian: ${missing.join(' ')}`);
  sh('apt-get', ['update', '-qq'], { timeout: 300_000 });
  sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { timeout: 600_000 });
}

function writePodmanConfig() {
  mkdirSync(STATE, { recursive: true, mode: 0o700 });
  const hard = (flag) => spawnSync('bash', ['-c', `ulimit -H${flag}`], { encoding: 'utf8' }).stdout.trim();
  // conmon gets at most pid_max processes here, so the container's nproc cannot be higher either.
  const pidMax = existsSync('/proc/sys/kernel/pid_max') ? readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim() : '';
  const lowest = (...ns) => `${Math.min(...ns.filter((n) => /^\d+$/.test(n)).map(Number))}`;
  const limits = Object.entries({ nofile: hard('n'), nproc: lowest(hard('u'), pidMax) })
    .filter(([, n]) => /^\d+$/.test(n))
    .map(([name, n]) => `"${name}=${n}:${n}"`);
  // crun 1.8 refuses a mixed cgroup v1/v2 layout; runc does not. No systemd: cgroupfs and a file
  // event log. Root podman asks for nofile and nproc above the host's hard limits, which needs a
  // capability we may lack (runc: "error setting rlimit type 6"): the host's own limits instead.
  writeFileSync(
    podmanEnv.CONTAINERS_CONF,
    `[containers]\ndefault_ulimits = [${limits.join(', ')}]\n\n[engine]\nruntime = "runc"\n` +
      `cgroup_manager = "cgroupfs"\nevents_logger = "file"\ntmp_dir = "${join(STATE, 'tmp')}"\n`,
  );
  writeFileSync(
    podmanEnv.CONTAINERS_STORAGE_CONF,
    `[storage]\ndriver = "overlay"\ngraphroot = "${join(STATE, 'storage')}"\nrunroot = "${join(STATE, 'run')}"\n`,
  );
}

/** Containers and volumes of this script (an interrupted run's too), and its image. */
function cleanUp() {
  const ids = (args) =>
    `${podman(args, { allowFail: true, timeout: 30_000 }).stdout ?? ''}`.split('\n').filter(Boolean);
  const containers = ids(['ps', '-a', '-q', '--filter', `label=${LABEL}`]);
  if (containers.length > 0) podman(['rm', '-f', '-v', '-t', '0', ...containers], { allowFail: true, timeout: 60_000 });
  const volumes = ids(['volume', 'ls', '-q', '--filter', `label=${LABEL}`]);
  if (volumes.length > 0) podman(['volume', 'rm', '-f', ...volumes], { allowFail: true, timeout: 30_000 });
  if (!KEEP_IMAGE) podman(['rmi', '-f', IMAGE], { allowFail: true, timeout: 60_000 });
  // The build stage's leftovers, and anonymous volumes (the image declares VOLUME /data). Only in
  // this script's own storage: the machine's other podman state is not touched.
  podman(['image', 'prune', '-f'], { allowFail: true, timeout: 60_000 });
  podman(['volume', 'prune', '-f'], { allowFail: true, timeout: 60_000 });
  for (const entry of existsSync(STATE) ? readdirSync(STATE) : [])
    if (entry.startsWith('work-')) rmSync(join(STATE, entry), { recursive: true, force: true });
}

// --- the base image ---

function debianMirror() {
  if (process.env.DEBIAN_MIRROR) return process.env.DEBIAN_MIRROR;
  for (const f of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    const text = existsSync(f) ? readFileSync(f, 'utf8') : '';
    const m =
      /^URIs:\s*(\S+\/debian)\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm/m.exec(text);
    if (m) return m[1];
  }
  return 'http://deb.debian.org/debian';
}

function ensureBaseImage(work) {
  if (podman(['image', 'exists', BASE_IMAGE], { allowFail: true }).status === 0) {
    say(`base image ${BASE_IMAGE}: cached`);
    return;
  }
  if (process.env.CONTAINER_TEST_BASE !== 'local') {
    const pulled = podman(['pull', '-q', BASE_IMAGE], { allowFail: true, timeout: 300_000 });
    if (pulled.status === 0) return say(`base image ${BASE_IMAGE}: pulled`);
    say(`no registry serves ${BASE_IMAGE} (${tail(pulled.stderr, 1)}); making it locally`);
  }
  const rootfs = join(work, 'rootfs');
  const mirror = debianMirror();
  say(`debootstrap --variant=minbase bookworm (${mirror})`);
  sh('debootstrap', ['--variant=minbase', 'bookworm', rootfs, mirror], {
    timeout: 900_000,
    log: join(work, 'debootstrap.log'),
  });
  // Node 24 from the npm registry (the build scripts/with-node24.mjs uses), npm 11 beside it.
  const node = provisionNode24(
    ({ fetching }) => fetching && say(`fetching Node ${NODE24_VERSION} from the npm registry`),
  );
  copyFileSync(node, join(rootfs, 'usr/local/bin/node'));
  sh('chmod', ['0755', join(rootfs, 'usr/local/bin/node')]);
  const packs = join(work, 'packs');
  mkdirSync(packs);
  sh('npm', ['pack', '--loglevel=error', '--pack-destination', packs, 'npm@11'], { timeout: 300_000 });
  const tarball = readdirSync(packs).find((f) => f.endsWith('.tgz'));
  sh('tar', ['-xzf', join(packs, tarball), '-C', packs]);
  mkdirSync(join(rootfs, 'usr/local/lib/node_modules'), { recursive: true });
  renameSync(join(packs, 'package'), join(rootfs, 'usr/local/lib/node_modules/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));
  // The official image's user: node, 1000:1000, home /home/node.
  appendFileSync(join(rootfs, 'etc/group'), 'node:x:1000:\n');
  appendFileSync(join(rootfs, 'etc/passwd'), 'node:x:1000:1000::/home/node:/bin/bash\n');
  appendFileSync(join(rootfs, 'etc/shadow'), 'node:*:20000:0:99999:7:::\n');
  mkdirSync(join(rootfs, 'home/node'), { mode: 0o755 });
  sh('chown', ['1000:1000', join(rootfs, 'home/node')]);
  for (const d of ['var/lib/apt/lists', 'var/cache/apt', 'var/log'])
    sh('find', [join(rootfs, d), '-mindepth', '1', '-type', 'f', '-delete']);
  sh('tar', ['--numeric-owner', '-C', rootfs, '-cf', join(work, 'rootfs.tar'), '.'], { timeout: 300_000 });
  podman(
    [
      'import',
      '--change',
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change',
      `ENV NODE_VERSION=${NODE24_VERSION}`,
      '--change',
      'LABEL hubspot-public-app.local-base=debootstrap',
      '--change',
      'CMD ["node"]',
      join(work, 'rootfs.tar'),
      BASE_IMAGE,
    ],
    { timeout: 300_000 },
  );
  rmSync(rootfs, { recursive: true, force: true });
  say(`base image ${BASE_IMAGE}: made locally`);
}

// --- build ---

function buildImage(work) {
  // npm's registry and CA as the host's npm has them, handed in as build secrets (never a layer).
  const registry = sh('npm', ['config', 'get', 'registry']).stdout.trim();
  const cafile = sh('npm', ['config', 'get', 'cafile']).stdout.trim();
  const secrets = [];
  let npmrc = process.env.CONTAINER_TEST_NPMRC;
  if (!npmrc) {
    npmrc = join(work, 'npmrc');
    const useCa = cafile && cafile !== 'null' && cafile !== 'undefined' && existsSync(cafile);
    writeFileSync(npmrc, `registry=${registry}\n${useCa ? 'cafile=/run/secrets/npm_ca\n' : ''}`, { mode: 0o600 });
    if (useCa) secrets.push('--secret', `id=npm_ca,src=${cafile}`);
  }
  secrets.push('--secret', `id=npmrc,src=${npmrc}`);
  const t0 = Date.now();
  podman(
    [
      'build',
      '--pull=never',
      '--format',
      'docker',
      '--network',
      'host',
      '--layers=false',
      '-f',
      'docker/Dockerfile',
      '--build-arg',
      `BASE_IMAGE=${BASE_IMAGE}`,
      ...secrets,
      '-t',
      IMAGE,
      '.',
    ],
    { timeout: 900_000, log: join(STATE, 'build.log') },
  );
  say(`image built in ${((Date.now() - t0) / 1000).toFixed(0)} s (log: ${join(STATE, 'build.log')})`);
  return { registry };
}

function checkImage({ registry }) {
  const [config] = JSON.parse(podman(['image', 'inspect', IMAGE]).stdout);
  const c = config.Config;
  check('USER is numeric 1000:1000', c.User === '1000:1000', c.User);
  const test = (config.Healthcheck ?? c.Healthcheck)?.Test ?? [];
  check(
    'HEALTHCHECK present (docker format), without a Node process',
    test.length > 1 && !test.includes('node'),
    JSON.stringify(test),
  );
  check('tini is the entrypoint', (c.Entrypoint ?? [])[0] === '/usr/bin/tini', JSON.stringify(c.Entrypoint));
  const mb = (config.Size / 1e6).toFixed(0);
  // What is inside, looked at as root with Node in the image.
  const facts = JSON.parse(
    podman([
      'run',
      '--rm',
      '--network',
      'none',
      '--user',
      '0',
      '--entrypoint',
      'node',
      IMAGE,
      '-e',
      `const fs = require('fs'), cp = require('child_process');
       const du = (p) => Number(cp.execSync('du -sk ' + p).toString().split('\\t')[0]) * 1024;
       const prebuilds = cp.execSync("find /app/node_modules -path '*/prebuilds/*' -maxdepth 4 -mindepth 3").toString().split('\\n').filter(Boolean);
       const grep = cp.spawnSync('grep', ['-rlF', ${JSON.stringify(registry)}, '/root', '/app', '/etc', '/run'], { encoding: 'utf8' });
       console.log(JSON.stringify({
         app: fs.readdirSync('/app').sort(), nodeModules: du('/app/node_modules'),
         rootNpm: fs.existsSync('/root/.npm'), npmrc: fs.existsSync('/root/.npmrc') || fs.existsSync('/run/secrets/npmrc'),
         typescript: fs.existsSync('/app/node_modules/typescript'), prebuilds,
         tsFiles: cp.execSync("find /app -name '*.ts' -o -name '*.map'").toString().split('\\n').filter(Boolean).length,
         registryMentions: grep.stdout.split('\\n').filter((f) => f && !f.includes('/node_modules/')),
       }));`,
    ]).stdout,
  );
  check(
    '/app holds dist, node_modules, package.json, schemas, scripts, seed only',
    facts.app.join(' ') === 'dist node_modules package.json schemas scripts seed',
    facts.app.join(' '),
  );
  check('no /root/.npm (npm logs or cache) in the image', !facts.rootNpm);
  check(
    'no .npmrc secret left in the image',
    !facts.npmrc && facts.registryMentions.length === 0,
    facts.registryMentions.join(' '),
  );
  check(
    'no TypeScript in the image (compiler, sources, declarations, source maps)',
    !facts.typescript && facts.tsFiles === 0,
    `${facts.tsFiles} files`,
  );
  const foreign = facts.prebuilds.filter((p) => !/\/prebuilds\/linux-x64(\.node)?(\/|$)/.test(p));
  check("no other platforms' prebuilt binaries", foreign.length === 0, foreign.join(' '));
  say(`image size ${mb} MB (node_modules ${(facts.nodeModules / 1e6).toFixed(0)} MB)`);
  return { sizeMb: Number(mb) };
}

// --- running it ---

async function freePort() {
  const server = createServer();
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}

/** As docker/docker-compose.yml runs it: read-only root, tmpfs /tmp, no capabilities, a memory limit. */
function runContainer(name, port, env) {
  podman(
    [
      'run',
      '-d',
      '--name',
      name,
      '--label',
      LABEL,
      '--network',
      'slirp4netns:port_handler=slirp4netns',
      '-p',
      `127.0.0.1:${port}:3000`,
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '--memory',
      '768m',
      '-v',
      `${VOLUME}:/data`,
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      IMAGE,
    ],
    { timeout: 60_000 },
  );
}

const timeout = (ms) => AbortSignal.timeout(ms);
async function waitReady(base, name) {
  const until = Date.now() + 120_000;
  const gaveUp = () => {
    const state = podman(['inspect', '--format', '{{.State.Status}}', name], { allowFail: true }).stdout.trim();
    if (state === 'running' && Date.now() < until) return false;
    const logs = podman(['logs', name], { allowFail: true });
    console.log(tail(`${logs.stdout}\n${logs.stderr}`, 30));
    return true;
  };
  // Inside first, through the image's HEALTHCHECK: a connection that slirp4netns forwards before
  // the service listens can hang, so the host connects only once it listens.
  while (podman(['healthcheck', 'run', name], { allowFail: true, timeout: 30_000 }).status !== 0) {
    if (gaveUp()) return false;
    await new Promise((ok) => setTimeout(ok, 500)); // polling a condition with a deadline
  }
  for (;;) {
    const status = await fetch(`${base}/health/ready`, { signal: timeout(5000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return true;
    if (gaveUp()) return false;
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

/** A browser over fetch: keeps cookies, follows nothing by itself, submits the forms the page rendered. */
class Browser {
  cookies = new Map();
  constructor(base) {
    this.base = base;
  }
  async get(url) {
    return this.keep(
      await fetch(new URL(url, this.base), { redirect: 'manual', headers: this.header(), signal: timeout(10_000) }),
    );
  }
  async submit(page, action, fields) {
    const body = new URLSearchParams({ ...formFields(page, action), ...fields }).toString();
    const headers = { ...this.header(), 'content-type': 'application/x-www-form-urlencoded' };
    return this.keep(
      await fetch(new URL(action, this.base), {
        method: 'POST',
        redirect: 'manual',
        headers,
        body,
        signal: timeout(10_000),
      }),
    );
  }
  header() {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }
  keep(response) {
    for (const c of response.headers.getSetCookie()) {
      const [pair, ...attributes] = c.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value === '' || attributes.some((a) => /^\s*max-age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

const unescapeHtml = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
/** The hidden inputs (the CSRF token among them) of the form posting to `action`. */
function formFields(html, action) {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form with action ${action} on the page`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\s*\/?>/g))
    fields[unescapeHtml(m[1])] = unescapeHtml(m[2]);
  return fields;
}

async function json(response) {
  const text = await response.text();
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(text) };
  } catch {
    return { status: response.status, headers: response.headers, body: text };
  }
}

async function tokenRequest(base, fields) {
  return json(
    await fetch(`${base}/oauth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      signal: timeout(10_000),
    }),
  );
}
const bearerGet = async (base, path, token) =>
  json(await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: timeout(10_000) }));

/** README's "Try it": install page (sign-in with CSRF, account, consent) -> code -> token -> metadata -> CRM -> refresh. */
async function tryIt(base, name, publicUrl) {
  const seed = JSON.parse(readFileSync('seed/demo.json', 'utf8'));
  const logs = podman(['logs', name]).stdout;
  const installUrl = /^ {2}Install URL +(\S+)$/m.exec(logs)?.[1] ?? '';
  check(
    'the banner prints the install URL on PUBLIC_URL',
    installUrl.startsWith(`${publicUrl}/oauth/authorize?client_id=${seed.app.clientId}&`),
    installUrl,
  );
  const meta = await json(await fetch(`${base}/.well-known/oauth-authorization-server`, { signal: timeout(10_000) }));
  check('the issuer is PUBLIC_URL', meta.body.issuer === publicUrl, meta.body.issuer);
  const browser = new Browser(base);
  const signIn = await browser.get(new URL(installUrl).pathname + new URL(installUrl).search);
  const signInPage = await signIn.text();
  check(
    'install page 200 with a CSRF token in its sign-in form',
    signIn.status === 200 &&
      Object.keys(formFields(signInPage, '/oauth/authorize/sign-in')).some((k) => /csrf/i.test(k)),
    `${signIn.status}`,
  );
  const signedIn = await browser.submit(signInPage, '/oauth/authorize/sign-in', {
    email: seed.user.email,
    password: seed.user.password,
  });
  const chooser = await (await browser.get(signedIn.headers.get('location'))).text();
  const hubId = /name="hub_id"\s+value="(\d+)"/.exec(chooser)?.[1];
  check(
    'signed in: the account chooser lists accounts',
    [302, 303].includes(signedIn.status) && hubId !== undefined,
    `${signedIn.status}`,
  );
  const chosen = await browser.submit(chooser, '/oauth/authorize/account', { hub_id: hubId });
  const consent = await (await browser.get(chosen.headers.get('location'))).text();
  const approved = await browser.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
  const landedOn = approved.headers.get('location') ?? '';
  const code = new URL(landedOn || 'http://x/').searchParams.get('code');
  check(
    'consent redirects to the app with a code',
    approved.status === 302 && landedOn.startsWith('http://localhost:3001/oauth/callback?code=') && !!code,
    landedOn,
  );

  const client = { client_id: seed.app.clientId, client_secret: seed.app.clientSecret };
  const tokens = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://localhost:3001/oauth/callback',
    ...client,
  });
  check(
    'code -> tokens (200, no-store)',
    tokens.status === 200 &&
      !!tokens.body.access_token &&
      !!tokens.body.refresh_token &&
      tokens.headers.get('cache-control') === 'no-store',
    `${tokens.status} ${JSON.stringify(tokens.body).slice(0, 200)}`,
  );
  const info = await json(
    await fetch(`${base}/oauth/v1/access-tokens/${tokens.body.access_token}`, { signal: timeout(10_000) }),
  );
  check(
    'access-token metadata names the hub',
    info.status === 200 && String(info.body.hub_id) === hubId,
    `${info.status} ${info.body.hub_id}`,
  );
  const crm = await bearerGet(base, '/crm/v3/properties/contacts', tokens.body.access_token);
  check(
    'a CRM call with the token',
    crm.status === 200 && Array.isArray(crm.body.results) && crm.body.results.length > 0,
    `${crm.status}`,
  );
  const refreshed = await tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: tokens.body.refresh_token,
    ...client,
  });
  check(
    'refresh grant -> a new access token',
    refreshed.status === 200 && !!refreshed.body.access_token,
    `${refreshed.status}`,
  );
  const again = await bearerGet(base, '/crm/v3/properties/contacts', refreshed.body.access_token);
  check('a CRM call with the refreshed token', again.status === 200, `${again.status}`);
  return { ...client, hubId, accessToken: tokens.body.access_token, refreshToken: tokens.body.refresh_token };
}

function checkHealth(name) {
  const run = podman(['healthcheck', 'run', name], { allowFail: true, timeout: 30_000 });
  const [inspect] = JSON.parse(podman(['inspect', name]).stdout);
  const health = inspect.State.Healthcheck ?? inspect.State.Health ?? {};
  check(
    'HEALTHCHECK runs and reports healthy',
    run.status === 0 && health.Status === 'healthy',
    `${run.status} ${health.Status} ${tail(run.stdout + run.stderr, 3)}`,
  );
}

function execCheck(name, label, args, expect) {
  const r = podman(['exec', name, ...args], { allowFail: true, timeout: 60_000 });
  check(label, r.status === 0 && expect.test(r.stdout), `exit ${r.status}: ${tail(r.stdout + r.stderr, 5)}`);
}

function sigterm(name) {
  const t0 = Date.now();
  podman(['kill', '--signal', 'TERM', name]);
  const waited = podman(['wait', name], { allowFail: true, timeout: 15_000 });
  const seconds = (Date.now() - t0) / 1000;
  check(
    'SIGTERM: exit code 0 within 10 s',
    waited.status === 0 && waited.stdout.trim() === '0' && seconds < 10,
    `exit ${waited.stdout.trim() || waited.error?.message}, ${seconds.toFixed(1)} s`,
  );
  const logs = podman(['logs', name]).stdout;
  check('shutdown logged as complete', /event store and read models closed/.test(logs), tail(logs, 3));
  say(`stopped in ${seconds.toFixed(1)} s`);
}

function checkVolumeModes() {
  const listing = podman([
    'run',
    '--rm',
    '--network',
    'none',
    '--user',
    '0',
    '--entrypoint',
    'find',
    '-v',
    `${VOLUME}:/data`,
    IMAGE,
    '/data',
    '-printf',
    '%y %m %U:%G %p\\n',
  ])
    .stdout.trim()
    .split('\n');
  const wrong = listing.filter((l) => !/^(d 700|f 600) 1000:1000 /.test(l));
  check(
    `volume: folders 0700, files 0600, owned 1000:1000 (${listing.length} entries)`,
    listing.length > 2 && wrong.length === 0,
    wrong.join('; '),
  );
}

// --- compose ---

function checkCompose() {
  const env = {
    ...process.env,
    ADMIN_API_KEY: 'x'.repeat(24),
    SESSION_SECRET: 'y'.repeat(32),
    TOKEN_SIGNING_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
  const r = spawnSync('docker-compose', ['-f', 'docker/docker-compose.yml', 'config'], {
    encoding: 'utf8',
    env,
    timeout: 60_000,
  });
  if (!check('docker-compose renders docker/docker-compose.yml (config, no engine)', r.status === 0, tail(r.stderr, 5)))
    return;
  const rendered = spawnSync('python3', ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], {
    input: r.stdout,
    encoding: 'utf8',
  });
  const app = JSON.parse(rendered.stdout).services.app;
  check('compose app: init', app.init === true);
  check(
    'compose app: read_only with a tmpfs /tmp',
    app.read_only === true && [app.tmpfs].flat().some((t) => /^\/tmp(:|$)/.test(t)),
    JSON.stringify(app.tmpfs),
  );
  check('compose app: cap_drop ALL', JSON.stringify(app.cap_drop) === '["ALL"]');
  check('compose app: no-new-privileges', (app.security_opt ?? []).includes('no-new-privileges:true'));
  check('compose app: memory limit', !!(app.mem_limit ?? app.deploy?.resources?.limits?.memory));
  check(
    'compose app: PUBLIC_URL set',
    /^https?:\/\//.test(app.environment?.PUBLIC_URL ?? ''),
    app.environment?.PUBLIC_URL,
  );
  check('compose app: no healthcheck of its own (the image has one)', app.healthcheck === undefined);
}

// --- the run ---

async function main() {
  ensureTools();
  writePodmanConfig();
  cleanUp();
  const work = mkdtempSync(join(STATE, 'work-'));
  ensureBaseImage(work);
  // CONTAINER_TEST_REUSE_IMAGE=1 (with CONTAINER_TEST_KEEP_IMAGE=1 before): test the image of the last run again.
  const reuse =
    process.env.CONTAINER_TEST_REUSE_IMAGE === '1' &&
    podman(['image', 'exists', IMAGE], { allowFail: true }).status === 0;
  const built = reuse ? { registry: sh('npm', ['config', 'get', 'registry']).stdout.trim() } : buildImage(work);
  const { sizeMb } = checkImage(built);

  podman(['volume', 'create', '--label', LABEL, VOLUME]);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { SEED: 'demo', ADMIN_API_KEY: randomBytes(24).toString('hex'), PUBLIC_URL: base };
  say(`run 1 on ${base} (read-only, no capabilities, 768 MB)`);
  runContainer('hubspot-ct-1', port, env);
  if (!check('ready (/health/ready 200)', await waitReady(base, 'hubspot-ct-1')))
    throw new Error('the container did not become ready');
  const ids = podman(['exec', 'hubspot-ct-1', 'sh', '-c', 'echo $(id -u):$(id -g) $(cat /proc/1/comm)']).stdout.trim();
  check('runs as 1000:1000 under tini (PID 1)', ids === '1000:1000 tini', ids);
  checkHealth('hubspot-ct-1');
  const session = await tryIt(base, 'hubspot-ct-1', base);
  execCheck(
    'hubspot-ct-1',
    'docker exec … npm run -s audit:verify',
    ['npm', 'run', '--silent', 'audit:verify'],
    /^ok: \d+ archive files/m,
  );
  execCheck(
    'hubspot-ct-1',
    'docker exec … npm run -s audit:export',
    ['npm', 'run', '--silent', 'audit:export'],
    /^\{".*\}$/m,
  );
  sigterm('hubspot-ct-1');
  podman(['rm', 'hubspot-ct-1']);
  check('the volume outlives the container', podman(['volume', 'exists', VOLUME], { allowFail: true }).status === 0);
  checkVolumeModes();

  say('run 2: a new container on the same volume');
  runContainer('hubspot-ct-2', port, env);
  if (!check('ready again', await waitReady(base, 'hubspot-ct-2')))
    throw new Error('the second container did not become ready');
  const old = await bearerGet(base, '/crm/v3/properties/contacts', session.accessToken);
  check('an access token of run 1 still works (signing keys kept)', old.status === 200, `${old.status}`);
  const refreshed = await tokenRequest(base, {
    grant_type: 'refresh_token',
    refresh_token: session.refreshToken,
    client_id: session.client_id,
    client_secret: session.client_secret,
  });
  check('a refresh token of run 1 still works (events kept)', refreshed.status === 200, `${refreshed.status}`);
  sigterm('hubspot-ct-2');
  podman(['rm', 'hubspot-ct-2']);
  execCheckOffline();

  checkCompose();
  return sizeMb;
}

/** `projections:rebuild` wants the service stopped: a one-off container on the volume. */
function execCheckOffline() {
  const r = podman(
    [
      'run',
      '--rm',
      '--label',
      LABEL,
      '--network',
      'none',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '-v',
      `${VOLUME}:/data`,
      IMAGE,
      'npm',
      'run',
      '--silent',
      'projections:rebuild',
    ],
    { allowFail: true, timeout: 120_000 },
  );
  check(
    'docker run --rm … npm run projections:rebuild (service stopped)',
    r.status === 0,
    `exit ${r.status}: ${tail(r.stdout + r.stderr, 5)}`,
  );
}

let finished = false;
function finish(code) {
  if (finished) return;
  finished = true;
  say('cleaning up');
  try {
    cleanUp();
    if (!KEEP_BASE) {
      podman(['rmi', '-f', BASE_IMAGE], { allowFail: true });
      podman(['system', 'reset', '-f'], { allowFail: true, timeout: 120_000 });
      rmSync(STATE, { recursive: true, force: true });
    }
  } catch (error) {
    console.error(`cleanup: ${error.message}`);
  }
  console.log(`\ncontainer: ${passed} passed, ${failures.length} failed`);
  for (const f of failures) console.log(`  failed: ${f}`);
  say(code === 0 && failures.length === 0 ? 'done' : 'FAILED');
  process.exit(code === 0 && failures.length === 0 ? 0 : 1);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => finish(1));
// Bounded as a whole (each command is bounded too); also keeps the event loop alive while awaiting.
const watchdog = setTimeout(
  () => {
    console.error(`\nstopped: over ${process.env.CONTAINER_TEST_MINUTES || 45} minutes`);
    finish(1);
  },
  Number(process.env.CONTAINER_TEST_MINUTES || 45) * 60_000,
);

main().then(
  () => {
    clearTimeout(watchdog);
    finish(0);
  },
  (error) => {
    console.error(`\n${error.message}`);
    finish(1);
  },
);
