import { closeSync, fsyncSync, openSync } from 'node:fs';

/** Asks the disk to keep a file's or directory's content (a directory's: its entries, after a create or rename). */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
