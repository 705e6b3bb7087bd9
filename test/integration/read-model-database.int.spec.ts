import type Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closeReadModelDatabase,
  openReadModelDatabase,
  systemBootId,
} from '../../src/platform/projections/read-model-database';

const BOOT_A = '11111111-1111-4111-8111-111111111111';
const BOOT_B = '22222222-2222-4222-8222-222222222222';

function writeRow(db: Database.Database, value: string): void {
  db.exec('CREATE TABLE IF NOT EXISTS t (v TEXT)');
  db.prepare('INSERT INTO t (v) VALUES (?)').run(value);
}

const rows = (db: Database.Database): string[] => {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 't'").get();
  return exists ? (db.prepare('SELECT v FROM t').all() as Array<{ v: string }>).map((r) => r.v) : [];
};

describe('read-model database: unsynced commits, guarded by the boot id', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hs-readmodels-'));
    file = join(dir, 'readmodels.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('commits without fsync and marks the file with the boot id before the first write', () => {
    const db = openReadModelDatabase(file, { bootId: () => BOOT_A });
    expect(db.pragma('synchronous', { simple: true })).toBe(0); // OFF
    expect(readFileSync(`${file}.unsynced`, 'utf8')).toBe(BOOT_A);
    db.close();
  });

  it('keeps what a crashed process wrote when the system did not restart', () => {
    const db = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(db, 'kept');
    db.close(); // no clean close: the mark stays, as after kill -9

    const warnings: string[] = [];
    const again = openReadModelDatabase(file, { bootId: () => BOOT_A, warn: (m) => warnings.push(m) });
    expect(rows(again)).toEqual(['kept']);
    expect(warnings).toEqual([]);
    again.close();
  });

  it('drops the file (WAL and all) when it was written unsynced before a system restart', () => {
    const db = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(db, 'maybe torn');
    db.close();
    expect(existsSync(`${file}-wal`) || existsSync(file)).toBe(true);

    const warnings: string[] = [];
    const after = openReadModelDatabase(file, { bootId: () => BOOT_B, warn: (m) => warnings.push(m) });
    expect(rows(after)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('rebuilding');
    // The projections' checkpoints went with it, so every projection rebuilds from zero.
    expect(after.prepare('SELECT COUNT(*) AS n FROM projection_checkpoints').get()).toEqual({ n: 0 });
    expect(readFileSync(`${file}.unsynced`, 'utf8')).toBe(BOOT_B);
    after.close();
  });

  it('a clean close folds the WAL, syncs and removes the mark: the file survives a restart', () => {
    const db = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(db, 'synced');
    closeReadModelDatabase(db);
    expect(existsSync(`${file}.unsynced`)).toBe(false);
    expect(db.open).toBe(false);

    const warnings: string[] = [];
    const after = openReadModelDatabase(file, { bootId: () => BOOT_B, warn: (m) => warnings.push(m) });
    expect(rows(after)).toEqual(['synced']);
    expect(warnings).toEqual([]);
    closeReadModelDatabase(after);
  });

  it('keeps the mark when the WAL could not be folded (another connection still reading)', () => {
    const db = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(db, 'a');
    const reader = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(db, 'b'); // a WAL frame the reader's snapshot below pins
    const iterator = reader.prepare('SELECT v FROM t').iterate();
    iterator.next();
    writeRow(db, 'c');
    closeReadModelDatabase(db);
    expect(existsSync(`${file}.unsynced`)).toBe(true);
    iterator.return?.();
    reader.close();
  });

  it('closing twice is harmless', () => {
    const db = openReadModelDatabase(file, { bootId: () => BOOT_A });
    closeReadModelDatabase(db);
    expect(() => closeReadModelDatabase(db)).not.toThrow();
  });

  it('without a boot id every commit is synced (NORMAL) and no mark is written', () => {
    const first = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(first, 'synced');
    closeReadModelDatabase(first);
    const warnings: string[] = [];
    const db = openReadModelDatabase(file, { bootId: () => undefined, warn: (m) => warnings.push(m) });
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(existsSync(`${file}.unsynced`)).toBe(false);
    expect(rows(db)).toEqual(['synced']);
    expect(warnings).toEqual([]);
    db.close();
  });

  it('without a boot id, a file left marked (unsynced, boot unknown) is rebuilt', () => {
    const first = openReadModelDatabase(file, { bootId: () => BOOT_A });
    writeRow(first, 'maybe torn');
    first.close();
    const warnings: string[] = [];
    const db = openReadModelDatabase(file, { bootId: () => undefined, warn: (m) => warnings.push(m) });
    expect(rows(db)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(existsSync(`${file}.unsynced`)).toBe(false);
    db.close();
  });

  it('reads the boot id Linux gives', () => {
    const id = systemBootId();
    if (existsSync('/proc/sys/kernel/random/boot_id')) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    else expect(id).toBeUndefined();
  });
});

describe('read-model database in memory', () => {
  it('creates no file named after it in the working directory', () => {
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), 'hs-readmodels-mem-'));
    try {
      process.chdir(dir);
      const db = openReadModelDatabase(':memory:', { bootId: () => BOOT_A });
      writeRow(db, 'x');
      expect(rows(db)).toEqual(['x']);
      closeReadModelDatabase(db);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
