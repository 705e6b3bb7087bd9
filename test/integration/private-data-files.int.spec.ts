import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const DATABASES = ['events.sqlite', 'readmodels.sqlite'];

/** The data dir is 0700 and the SQLite files 0600, like the generated keys (issue 14, finding 11). */
describe('data directory and database file modes', () => {
  const parent = mkdtempSync(join(tmpdir(), 'hs-modes-'));
  const dataDir = join(parent, 'data'); // not there yet: the service creates it
  let closeAfter: TestApp | undefined;
  afterEach(async () => {
    await closeAfter?.close({ keepData: true });
    closeAfter = undefined;
  });
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('creates the data dir 0700 and the event store, read models and their WAL files 0600', async () => {
    const t = await startTestApp({ dataDir });
    closeAfter = t;
    await createAccount(t); // a write: events and read models get their -wal files
    expect(modeOf(dataDir)).toBe(0o700);
    for (const name of DATABASES) {
      for (const suffix of ['', '-wal', '-shm']) {
        const path = join(dataDir, name + suffix);
        expect([name + suffix, existsSync(path)]).toEqual([name + suffix, true]);
        expect([name + suffix, modeOf(path).toString(8)]).toEqual([name + suffix, '600']);
      }
    }
  });

  it('keeps every file it creates in DATA_DIR 0600 (the unsynced mark of the read models too)', async () => {
    const t = await startTestApp({ dataDir });
    closeAfter = t;
    await createAccount(t);
    const files = (readdirSync(dataDir, { recursive: true }) as string[]).filter((f) =>
      statSync(join(dataDir, f)).isFile(),
    );
    expect(files).toEqual(expect.arrayContaining(['readmodels.sqlite.unsynced', 'instance.lock']));
    for (const f of files) expect([f, modeOf(join(dataDir, f)).toString(8)]).toEqual([f, '600']);
  });

  it('narrows a mark an older version left 0644 at the next start', async () => {
    const mark = join(dataDir, 'readmodels.sqlite.unsynced');
    writeFileSync(mark, readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    chmodSync(mark, 0o644);
    const t = await startTestApp({ dataDir });
    closeAfter = t;
    expect(modeOf(mark).toString(8)).toBe('600');
  });

  it('narrows the generated key files left 0644 at the next start (issue 41, item 10)', async () => {
    const keys = ['signing-key.json', 'session-key.json'];
    const first = await startTestApp({ dataDir });
    await first.close({ keepData: true });
    for (const name of keys) {
      expect([name, existsSync(join(dataDir, name))]).toEqual([name, true]);
      chmodSync(join(dataDir, name), 0o644); // restored from a backup, copied by an operator
    }
    const t = await startTestApp({ dataDir });
    closeAfter = t;
    for (const name of keys) expect([name, modeOf(join(dataDir, name)).toString(8)]).toEqual([name, '600']);
  });

  it('narrows files an older version left 0644 at the next start', async () => {
    chmodSync(dataDir, 0o755);
    for (const name of DATABASES) chmodSync(join(dataDir, name), 0o644);
    const t = await startTestApp({ dataDir });
    closeAfter = t;
    expect(modeOf(dataDir)).toBe(0o700);
    for (const name of DATABASES) expect([name, modeOf(join(dataDir, name)).toString(8)]).toEqual([name, '600']);
  });
});
