import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '../support/child-env';
import { ensureBuilt } from '../support/service-process';
import { createAccount, startTestApp } from '../support/test-app';

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

/**
 * Issue 41, item 11: the export command as the README and docs/retention.md write it, run through a
 * shell into a file the way a person runs it, gives a file of NDJSON and nothing else (npm's
 * `> name@version script` banner went into the file before).
 */
describe('the documented audit:export command writes a clean NDJSON file', () => {
  const ROOT = join(__dirname, '..', '..');
  let dataDir: string;
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'audit-export-doc-'));
    const t = await startTestApp({ dataDir });
    await createAccount(t);
    await createAccount(t);
    await t.close({ keepData: true });
  }, 180_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Every `npm run … audit:export …` command in backquotes in the docs, without `docker exec` and the redirect. */
  const documented = ['README.md', 'docs/retention.md'].flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/`((?:docker exec \S+ )?npm run[^`]*audit:export[^`]*)`/g)].map(
      (m) => [file, m[1]!] as const,
    ),
  );

  it('is documented', () => expect(documented.length).toBeGreaterThanOrEqual(3));

  it.each(documented)('%s: %s', (_file, command) => {
    const runnable = command
      .replace(/^docker exec \S+ /, '')
      .replace(/\s*>\s*\S+$/, '')
      .replace(/<position\|ISO date>/g, (_: string, at: number) => (at < command.indexOf('--to') ? '1' : '1000'));
    const out = join(dataDir, 'audit.ndjson');
    const r = spawnSync('sh', ['-c', `${runnable} > ${out}`], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: childEnv({ DATA_DIR: dataDir }),
    });
    expect([r.status, r.stderr]).toEqual([0, expect.any(String)]);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      expect(event).toMatchObject({ type: expect.any(String), source: 'live' });
    }
  });
});
