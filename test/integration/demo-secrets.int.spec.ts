import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoSeeder } from '../../src/directory/seed/demo-seeder';
import { ensureBuilt, httpRequest, startService, waitForExit } from '../support/service-process';

/**
 * The demo as `npm start` runs it: the seed is applied (twice: it is idempotent) and neither the
 * store files nor the JSON log hold the demo client secret or password in plain form. The start-up
 * banner prints them on purpose (it is how a person finds them); it is not a log line.
 */
describe('demo seed keeps secrets out of the store and the log', () => {
  let dataDir: string;
  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-demo-'));
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('hashes them', async () => {
    const seed = DemoSeeder.load();
    const secrets = [seed.app.clientSecret, seed.user.password];
    const outputs: string[] = [];
    const eventCounts: number[] = [];
    const countEvents = () => {
      const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
      const n = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
      db.close();
      return n;
    };
    for (let run = 0; run < 2; run++) {
      const service = await startService({ DATA_DIR: dataDir, SEED: 'demo', ADMIN_API_KEY: '', LOG_LEVEL: 'info' });
      const apps = await httpRequest(`${service.url}/health/ready`);
      expect(apps.status).toBe(200);
      service.child.kill('SIGTERM');
      await waitForExit(service.child);
      outputs.push(service.output());
      eventCounts.push(countEvents());
    }
    // Idempotent: the second start added no events.
    expect(eventCounts[0]).toBeGreaterThan(0);
    expect(eventCounts[1]).toBe(eventCounts[0]);
    expect(outputs[1]).toContain(seed.app.clientId);
    for (const file of readdirSync(dataDir)) {
      const bytes = readFileSync(join(dataDir, file));
      for (const s of secrets) expect(bytes.includes(Buffer.from(s))).toBe(false);
    }
    const logLines = outputs.flatMap((o) => o.split('\n')).filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(5);
    for (const line of logLines) for (const s of secrets) expect(line).not.toContain(s);
    // The banner is there for people.
    expect(outputs[0]).toContain('Install URL');
    expect(outputs[0]).toContain(seed.user.email);
  }, 120_000);
});
