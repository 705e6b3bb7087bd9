import { StorageFaultError, type StorageFaultReason } from './storage-fault';

/**
 * The server's words for a storage it cannot write: .NET's IOException texts on Linux ("No space
 * left on device", "Read-only file system", "Input/output error", "Disk quota exceeded") and on
 * Windows ("There is not enough space on the disk").
 */
const SERVER_TEXTS: Array<[RegExp, StorageFaultReason]> = [
  [/no space left on device|not enough space on the disk|disk quota exceeded|\bENOSPC\b|\bEDQUOT\b/i, 'full'],
  [/read-only file system|\bEROFS\b/i, 'read_only'],
  [/input\/output error|\bEIO\b/i, 'io'],
];

/**
 * An EventStoreDB error as the store-neutral StorageFaultError when it says the server's storage
 * refused the write; null otherwise. The gRPC client has no error type for a full or read-only
 * disk: the server answers such an append with the generic `unknown` status whose message carries
 * the IOException text, so the text is what tells. Only `unknown` (the server answered: not written);
 * a dropped connection or a timeout may hide a write that happened, so those stay what they are.
 */
export function toEsdbStorageFault(error: unknown): StorageFaultError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { type, message } = error as { type?: unknown; message?: unknown };
  if (type !== 'unknown' || typeof message !== 'string') return null;
  for (const [text, reason] of SERVER_TEXTS) {
    if (text.test(message)) return new StorageFaultError(reason, 'ESDB', message);
  }
  return null;
}
