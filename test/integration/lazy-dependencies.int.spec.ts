import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '../support/child-env';
import { ensureBuilt } from '../support/service-process';

/**
 * The packages only some configurations use are loaded only by them: the EventStoreDB client
 * (with gRPC), ioredis, the hosts front's X.509 code and pino-pretty (a terminal's log format) are about 10 MiB of heap (and 450 modules)
 * that a service on its embedded default never needs, and that counted against the 256 MiB ceiling
 * of issue 36's load. Run on the built service (`dist/`), as `npm start` loads it.
 */
const ROOT = join(__dirname, '..', '..');
const OPTIONAL = ['@eventstore/db-client', '@grpc/grpc-js', 'ioredis', '@peculiar/x509', 'pino-pretty'];

/** The optional packages a whole app (every feature module, initialised) has loaded under `env`. */
function loadedOptionalPackages(env: Record<string, string>): string[] {
  const script = `
    require('reflect-metadata');
    const { createApp } = require('./dist/app.factory');
    const { loadConfig } = require('./dist/platform/config/config');
    const { featureModules } = require('./dist/feature-modules');
    const { createLogger } = require('./dist/platform/logging/logger');
    const { systemClock } = require('./dist/platform/clock');
    (async () => {
      const config = loadConfig(process.env);
      const app = await createApp({ config, clock: systemClock, modules: featureModules(), logger: createLogger('silent', undefined, { format: process.env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json' }) });
      const loaded = new Set();
      for (const file of Object.keys(require.cache)) {
        const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
        if (match && ${JSON.stringify(OPTIONAL)}.includes(match[1])) loaded.add(match[1]);
      }
      await app.close();
      process.stdout.write(JSON.stringify([...loaded].sort()));
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-lazy-'));
  try {
    const r = spawnSync(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: childEnv({ DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: 'lazy-admin-key-0123456789', ...env }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`the app did not start (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout) as string[];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('optional dependencies are loaded only by the configurations that use them', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('the embedded default (SQLite, counters in memory, no hosts front) loads none of them', () => {
    expect(loadedOptionalPackages({})).toEqual([]);
  }, 90_000);

  it('a Redis counter store loads ioredis, the hosts front its X.509 code, a terminal pino-pretty (each only its own)', () => {
    // Nothing listens on port 1: the store keeps reconnecting, the start goes on (docs/configuration.md).
    expect(loadedOptionalPackages({ COUNTER_STORE_URL: 'redis://127.0.0.1:1' })).toEqual(['ioredis']);
    expect(loadedOptionalPackages({ HUBSPOT_HOSTS_TLS_PORT: '0' })).toEqual(['@peculiar/x509']);
    expect(loadedOptionalPackages({ LOG_FORMAT: 'pretty' })).toEqual(['pino-pretty']);
  }, 120_000);
});
