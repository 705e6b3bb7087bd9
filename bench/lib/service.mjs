// The service under test: `node dist/main.js` as a child process on its own data directory,
// set up through its admin API and token endpoint exactly as a harness would.
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, stop, waitForStatus } from './processes.mjs';
import { HEAP_OPTIONS } from '../../scripts/heap-options.mjs';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const REDIRECT_URI = 'https://example.com/oauth-callback';

/** V8 heap settings the service runs with (`npm start`, `npm run start:prod`, the container): what users run. */
export const SERVICE_NODE_OPTIONS = process.env.BENCH_SERVICE_NODE_OPTIONS ?? HEAP_OPTIONS.join(' ');

export class Service {
  /**
   * `logLevel`: undefined runs the service at its own default (what users run: `info`); its log
   * lines go to a file in `dataDir`, as a log shipper would read them, not through the bench.
   */
  constructor({ dataDir, adminKey = randomBytes(24).toString('hex'), env = {}, logLevel }) {
    this.dataDir = dataDir;
    this.adminKey = adminKey;
    this.extraEnv = env;
    this.logLevel = logLevel;
    this.logFile = join(dataDir, 'service.log');
    this.child = null;
    this.url = '';
    this.output = '';
  }

  get pid() {
    return this.child.pid;
  }

  /** Spawns the process; resolves once it listens (not necessarily ready). Returns ms since spawn. */
  async start() {
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.output = '';
    const began = performance.now();
    const profile = process.env.BENCH_PROFILE_DIR ? ['-r', join(ROOT, 'bench', 'profile-preload.cjs')] : [];
    const { LOG_LEVEL: _, ...inherited } = process.env;
    const logFd = openSync(this.logFile, 'a');
    // BENCH_SERVICE_MAIN: another build of the service (a before/after pair in one sitting).
    const main = process.env.BENCH_SERVICE_MAIN ?? join(ROOT, 'dist', 'main.js');
    this.child = spawn(process.execPath, [...profile, main], {
      cwd: ROOT,
      env: {
        ...inherited,
        NODE_OPTIONS: [inherited.NODE_OPTIONS, SERVICE_NODE_OPTIONS].filter(Boolean).join(' '),
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: this.dataDir,
        SEED: 'none',
        ADMIN_API_KEY: this.adminKey,
        RATE_LIMIT_ENABLED: 'false',
        ...(this.logLevel ? { LOG_LEVEL: this.logLevel } : {}),
        AUTH_CODE_TTL_SECONDS: '600',
        ...this.extraEnv,
      },
      stdio: ['ignore', logFd, 'pipe'],
    });
    closeSync(logFd);
    this.child.stderr.on('data', (c) => (this.output += c.toString()));
    const exited = new Promise((_, reject) =>
      this.child.once('exit', (code) =>
        reject(new Error(`service exited with ${code}:\n${this.output}\n${this.logTail()}`)),
      ),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForStatus(`${this.url}/health/live`, 200, { everyMs: 10 }), exited]);
    this.startedAt = began;
    return performance.now() - began;
  }

  /** Resolves once /health/ready answers 200 (every projection caught up). Returns ms since spawn. */
  async ready() {
    await waitForStatus(`${this.url}/health/ready`, 200, { everyMs: 20, timeoutMs: 600_000 });
    return performance.now() - this.startedAt;
  }

  /** The end of the service's log (for an error message). */
  logTail(bytes = 4096) {
    try {
      const text = readFileSync(this.logFile, 'utf8');
      return text.slice(-bytes);
    } catch {
      return '';
    }
  }

  async stop() {
    if (this.child) await stop(this.child);
  }

  async call(method, path, { body, headers = {}, form } = {}) {
    const init = { method, headers: { ...headers } };
    if (form) {
      init.body = new URLSearchParams(form).toString();
      init.headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    const r = await fetch(`${this.url}${path}`, init);
    const text = await r.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: r.status, json, text };
  }

  async admin(method, path, body) {
    const r = await this.call(method, path, { body, headers: { authorization: `Bearer ${this.adminKey}` } });
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
    return r.json;
  }

  /** Account, user, app: what every scenario starts from. */
  async createDeveloperSetup({ scopes, tier = 'enterprise' }) {
    const account = await this.admin('POST', '/admin/v1/accounts', { domain: 'bench-dev.example.com', tier });
    const user = await this.admin('POST', '/admin/v1/users', {
      email: 'bench@example.com',
      password: randomBytes(12).toString('hex'),
      hubIds: [account.hubId],
    });
    const app = await this.admin('POST', '/admin/v1/apps', {
      developerHubId: account.hubId,
      name: 'Bench app',
      redirectUrls: [REDIRECT_URI],
      requiredScopes: scopes,
      optionalScopes: [],
    });
    return { hubId: account.hubId, userId: user.userId, app };
  }

  /** An authorization code from the programmatic install (the same command as the install page). */
  async authorizationCode(setup) {
    const r = await this.admin('POST', `/admin/v1/apps/${setup.app.appId}/installs`, {
      hubId: setup.hubId,
      userId: setup.userId,
      redirectUri: REDIRECT_URI,
    });
    return r.code;
  }

  /** Authorization-code grant through the token endpoint: refresh token and access token. */
  async exchange(setup, code) {
    const r = await this.call('POST', '/oauth/v1/token', {
      form: {
        grant_type: 'authorization_code',
        client_id: setup.app.clientId,
        client_secret: setup.app.clientSecret,
        redirect_uri: REDIRECT_URI,
        code,
      },
    });
    if (r.status !== 200) throw new Error(`code exchange answered ${r.status}: ${r.text}`);
    return r.json;
  }
}
