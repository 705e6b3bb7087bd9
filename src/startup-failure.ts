import Database from 'better-sqlite3';
import { existsSync, statfsSync } from 'node:fs';
import { join, relative, resolve, isAbsolute } from 'node:path';
import { StartupRefusal } from './platform/core/startup-refusal';

/** What a start-up failure message needs to know about the configuration. */
export interface StartupSettings {
  host: string;
  port: number;
  dataDir: string;
}

interface SystemError {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  message?: unknown;
  name?: unknown;
}

const FS_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'EISDIR', 'ENOSPC', 'ENOENT', 'EDQUOT']);
const SQLITE_CANNOT_WRITE = /^SQLITE_(CANTOPEN|READONLY|PERM)/;
const SQLITE_DAMAGED = /^SQLITE_(NOTADB|CORRUPT)/;

/**
 * One sentence for a person when the service cannot start for a reason they can fix (the port is
 * taken, DATA_DIR cannot be written, a data file is damaged); null for anything else (a bug, whose
 * stack trace is then worth printing).
 */
export function describeStartupFailure(error: unknown, settings: StartupSettings): string | null {
  if (error instanceof StartupRefusal) return error.message;
  if (typeof error !== 'object' || error === null) return null;
  const e = error as SystemError;
  const code = typeof e.code === 'string' ? e.code : '';
  const dataDir = resolve(settings.dataDir);

  if (code === 'EADDRINUSE') {
    return `Port ${settings.port} on ${settings.host} is already in use: stop the program that uses it, or start on another port (e.g. PORT=${settings.port === 65535 ? 3001 : settings.port + 1}).`;
  }
  if (code === 'EADDRNOTAVAIL') {
    return `HOST ${settings.host} is not an address of this machine: set HOST to one of its addresses (the default is 127.0.0.1).`;
  }
  if (code === 'EACCES' && e.syscall === 'listen') {
    return `This user may not listen on port ${settings.port} (ports below 1024 need privileges): set PORT to another port.`;
  }
  const sqlite = e.name === 'SqliteError';
  const reason = sqlite ? `${code}: ${oneLine(e.message)}` : oneLine(e.message);
  if (FS_CODES.has(code) && typeof e.path === 'string' && within(dataDir, e.path)) {
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      return `The disk of DATA_DIR ${dataDir} is full (${reason}): free some space, or set DATA_DIR to a directory on another disk.`;
    }
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      return `DATA_DIR ${dataDir} is not a directory (${reason}): set DATA_DIR to a directory this user can write.`;
    }
    return `DATA_DIR ${dataDir} cannot be written (${reason}): set DATA_DIR to a directory this user can write.`;
  }
  // A write (not an open) that fails for want of space names no path (writeFileSync's write(2)):
  // it is DATA_DIR's when DATA_DIR's disk is the full one.
  if ((code === 'ENOSPC' || code === 'EDQUOT') && e.path === undefined && diskFull(dataDir)) {
    return `The disk of DATA_DIR ${dataDir} is full (${reason}): free some space, or set DATA_DIR to a directory on another disk.`;
  }
  if (sqlite && SQLITE_CANNOT_WRITE.test(code)) {
    return `DATA_DIR ${dataDir} cannot be written (${reason}): set DATA_DIR to a directory this user can write.`;
  }
  // SQLite reports a write that failed for want of space (e.g. growing the -shm file) as an I/O error.
  if (sqlite && (code === 'SQLITE_FULL' || (code.startsWith('SQLITE_IOERR') && diskFull(dataDir)))) {
    return `The disk of DATA_DIR ${dataDir} is full (${reason}): free some space, or set DATA_DIR to a directory on another disk.`;
  }
  if (sqlite && code.startsWith('SQLITE_IOERR')) {
    return `Reading or writing in DATA_DIR ${dataDir} failed (${reason}): check its disk and file system, or set DATA_DIR to a directory on another disk.`;
  }
  if (sqlite && SQLITE_DAMAGED.test(code)) {
    const damaged = damagedFile(dataDir);
    if (damaged === 'readmodels.sqlite') {
      return `${join(dataDir, damaged)} is damaged (${reason}): it holds only read models, so delete it and start again to rebuild them from the event history.`;
    }
    return `${join(dataDir, 'events.sqlite')} is not a readable event store (${reason}): restore it from a backup, or move it away to start with an empty store.`;
  }
  return null;
}

/** Whether the file system of DATA_DIR has (next to) no room left: fewer than 64 KiB for this user. */
function diskFull(dataDir: string): boolean {
  try {
    const fs = statfsSync(dataDir);
    return fs.bavail * fs.bsize < 64 * 1024;
  } catch {
    return false;
  }
}

/** Whether `path` is DATA_DIR, inside it, or one of the folders it would be created in. */
function within(dataDir: string, path: string): boolean {
  const p = resolve(path);
  const down = relative(dataDir, p);
  const up = relative(p, dataDir);
  return down === '' || (!down.startsWith('..') && !isAbsolute(down)) || (!up.startsWith('..') && !isAbsolute(up));
}

/** Which SQLite file of DATA_DIR SQLite itself refuses to read (asked read-only, after the fact). */
function damagedFile(dataDir: string): 'events.sqlite' | 'readmodels.sqlite' | null {
  for (const name of ['events.sqlite', 'readmodels.sqlite'] as const) {
    const file = join(dataDir, name);
    if (!existsSync(file)) continue;
    try {
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        db.pragma('quick_check(1)');
      } finally {
        db.close();
      }
    } catch (error) {
      if (SQLITE_DAMAGED.test(String((error as SystemError).code))) return name;
    }
  }
  return null;
}

function oneLine(message: unknown): string {
  return String(message ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}
