import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/**
 * The data directory and the SQLite files in it are readable by the service's user only, like the
 * generated keys: the event history holds password and client-secret hashes and every install.
 */
export function makePrivateDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodOwnOnly(dir, 0o700);
}

/**
 * Creates the database file 0600 before SQLite opens it (SQLite gives its -wal and -shm files the
 * database file's mode), and narrows files an older version created 0644.
 */
export function makePrivateDatabaseFile(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodOwnOnly(path, 0o600);
  }
}

/** Narrows an existing file to its owner (0600). */
export function makePrivateFile(file: string): void {
  chmodOwnOnly(file, 0o600);
}

/** chmod, except where we do not own the path (a mounted volume): that is the operator's choice. */
function chmodOwnOnly(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}
