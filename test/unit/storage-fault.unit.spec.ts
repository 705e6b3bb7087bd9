import Database from 'better-sqlite3';
import { toHubSpotError } from '../../src/platform/errors/error-mapping';
import { toErrorBody } from '../../src/platform/errors/hubspot-error';
import {
  sqliteStorageFaultReason,
  storageFaultOf,
  StorageFaultError,
} from '../../src/platform/event-store/storage-fault';

const sqliteError = (code: string, message: string) => new Database.SqliteError(message, code);

describe('storage faults', () => {
  it.each([
    ['SQLITE_FULL', 'database or disk is full', 'full'],
    ['SQLITE_READONLY', 'attempt to write a readonly database', 'read_only'],
    ['SQLITE_READONLY_DIRECTORY', 'attempt to write a readonly database', 'read_only'],
    ['SQLITE_IOERR_WRITE', 'disk I/O error', 'io'],
    ['SQLITE_IOERR_FSYNC', 'disk I/O error', 'io'],
    ['SQLITE_CANTOPEN', 'unable to open database file', 'io'],
  ])('classifies SQLite %s (%s) as %s', (code, message, reason) => {
    expect(storageFaultOf(sqliteError(code, message))).toMatchObject({ reason, code, message });
  });

  it('sqliteStorageFaultReason works from its source text alone, as the writer thread runs it', () => {
    const fromSource = new Function(`return ${sqliteStorageFaultReason.toString()}`)() as (code: string) => unknown;
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_READONLY_DIRECTORY',
      'SQLITE_IOERR_FSYNC',
      'SQLITE_CANTOPEN',
      'SQLITE_BUSY',
    ])
      expect(fromSource(code)).toBe(sqliteStorageFaultReason(code));
    expect(fromSource('SQLITE_CONSTRAINT_UNIQUE')).toBeNull();
  });

  it.each([
    ['ENOSPC', 'full'],
    ['EDQUOT', 'full'],
    ['EROFS', 'read_only'],
    ['EIO', 'io'],
  ])('classifies the file system error %s as %s', (code, reason) => {
    const error = Object.assign(new Error(`${code}: write`), { code });
    expect(storageFaultOf(error)).toMatchObject({ reason, code });
  });

  it.each([
    sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'),
    sqliteError('SQLITE_BUSY', 'database is locked'),
    Object.assign(new Error('nope'), { code: 'ENOENT' }),
    new Error('database or disk is full'), // no code: not guessed from the text
    null,
    'SQLITE_FULL',
  ])('leaves other errors alone (%p)', (error) => {
    expect(storageFaultOf(error)).toBeNull();
  });

  it('answers 507 with Retry-After and a HubSpot error body, not a 500', () => {
    const { error, isBug } = toHubSpotError(sqliteError('SQLITE_FULL', 'database or disk is full'));
    expect(isBug).toBe(false);
    expect(error.httpStatus).toBe(507);
    expect(error.extras.headers).toEqual({ 'Retry-After': '5' });
    expect(toErrorBody(error, 'c0ffee00-0000-4000-8000-000000000000')).toEqual({
      status: 'error',
      category: 'INSUFFICIENT_STORAGE',
      subCategory: 'STORAGE_FULL',
      message: 'The service cannot store data now (its storage is full); nothing was recorded. Retry later.',
      correlationId: 'c0ffee00-0000-4000-8000-000000000000',
    });
    const readOnly = toHubSpotError(new StorageFaultError('read_only', 'EROFS', 'read-only file system')).error;
    expect([readOnly.httpStatus, readOnly.extras.subCategory]).toEqual([507, 'STORAGE_READ_ONLY']);
    expect(readOnly.message).toContain('read-only');
  });
});
