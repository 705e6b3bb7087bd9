import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '../support/child-env';
import { ensureBuilt } from '../support/service-process';

const CLI = join(__dirname, '..', '..', 'dist', 'cli', 'audit-export.js');

function exportCli(env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI], { encoding: 'utf8', timeout: 60_000, env: childEnv(env) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm run audit:export (the compiled CLI)', () => {
  let dataDir: string;
  beforeAll(() => ensureBuilt(), 180_000);
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'audit-export-cli-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses on EventStoreDB instead of exporting DATA_DIR without the live events', () => {
    const r = exportCli({ DATA_DIR: dataDir, EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:1?tls=false' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/EVENTSTORE_CONNECTION_STRING is set: .*not supported yet/);
  });

  it('exports the SQLite store of DATA_DIR when no EventStoreDB is configured (empty here)', () => {
    const r = exportCli({ DATA_DIR: dataDir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  });
});
