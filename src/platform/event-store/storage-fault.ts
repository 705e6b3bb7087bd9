/**
 * Why the storage refused: it is full (or out of inodes or quota), read-only, failing, or its
 * file is damaged (a corrupt page: no retry mends it, a backup does).
 */
export type StorageFaultReason = 'full' | 'read_only' | 'io' | 'corrupt';

/**
 * The store could not write because of its storage, not because of the request: the disk is full,
 * read-only or failing. Nothing of the refused write is stored; the same write may succeed once the
 * fault clears, so the HTTP layer answers 507 with Retry-After and the read side retries by itself.
 */
export class StorageFaultError extends Error {
  constructor(
    readonly reason: StorageFaultReason,
    /** The driver's code (`SQLITE_FULL`, `ENOSPC`, ...) or `ESDB` for EventStoreDB's text-only errors. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StorageFaultError';
  }
}

/** errno codes of file-system calls (inode exhaustion is ENOSPC too). */
const ERRNO_REASONS: Record<string, StorageFaultReason> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EROFS: 'read_only',
  EIO: 'io',
};

/**
 * SQLite's extended result codes: SQLITE_FULL ("database or disk is full"), SQLITE_READONLY_* (a
 * file or directory turned read-only), SQLITE_IOERR_* (a write, fsync or truncate failed, ENOSPC
 * included), SQLITE_CANTOPEN (the -wal or -shm file cannot be created, e.g. no inodes left) and
 * SQLITE_CORRUPT_* / SQLITE_NOTADB (a damaged page or header).
 * Self-contained: the writer thread runs it from its source text (see sqlite-event-store.ts).
 */
export function sqliteStorageFaultReason(code: string): StorageFaultReason | null {
  if (code === 'SQLITE_FULL') return 'full';
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB') return 'corrupt';
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) return 'read_only';
  if (code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) return 'io';
  if (code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_CANTOPEN_')) return 'io';
  return null;
}

/** `error` as a StorageFaultError when a driver or the file system said the storage refused; else null. */
export function storageFaultOf(error: unknown): StorageFaultError | null {
  if (error instanceof StorageFaultError) return error;
  // No `instanceof Error`: driver errors may come from another realm (a worker, jest's vm contexts).
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return null;
  const reason = sqliteStorageFaultReason(code) ?? ERRNO_REASONS[code] ?? null;
  if (reason === null) return null;
  const fault = new StorageFaultError(reason, code, typeof message === 'string' ? message : code);
  if (reason === 'corrupt') storageDamage.record(fault);
  return fault;
}

/**
 * A damaged file seen by any reader or writer of this process (sticky: a corrupt page stays
 * corrupt until a person restores the file), so readiness reports it even when the request that
 * met it was answered.
 */
export class StorageDamage {
  private first: string | null = null;

  record(fault: StorageFaultError): void {
    this.first ??= `${fault.code}: ${fault.message}`;
  }

  reason(): string | null {
    return this.first;
  }
}

export const storageDamage = new StorageDamage();

export const isStorageFault = (error: unknown): boolean => storageFaultOf(error) !== null;
