import { ErrorType, UnavailableError, UnknownError } from '@eventstore/db-client';
import { toHubSpotError } from '../../src/platform/errors/error-mapping';
import { toEsdbStorageFault } from '../../src/platform/event-store/eventstoredb-storage-errors';

/** The client's errors as it builds them from a gRPC status (code and details). */
const grpc = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} }) as never;

describe('EventStoreDB storage-side errors', () => {
  it.each([
    [
      'Exception was thrown by handler. IOException: No space left on device : /var/lib/eventstore/chunk-000001.000000',
      'full',
    ],
    ['There is not enough space on the disk.', 'full'],
    ['IOException: Disk quota exceeded', 'full'],
    ['IOException: Read-only file system', 'read_only'],
    ['IOException: Input/output error', 'io'],
  ])('maps an append the server failed to write ("%s") to a %s storage fault and a 507', (details, reason) => {
    const error = new UnknownError(grpc(2, details));
    expect(error.type).toBe(ErrorType.UNKNOWN);
    const fault = toEsdbStorageFault(error);
    expect(fault).toMatchObject({ reason, code: 'ESDB' });
    expect(toHubSpotError(fault).error.httpStatus).toBe(507);
  });

  it('leaves other errors alone, and never an ambiguous one (the write may have happened)', () => {
    expect(toEsdbStorageFault(new UnknownError(grpc(2, 'Exception was thrown by handler.')))).toBeNull();
    expect(toEsdbStorageFault(new UnavailableError(grpc(14, 'No space left on device')))).toBeNull();
    expect(toEsdbStorageFault(new Error('No space left on device'))).toBeNull();
    expect(toEsdbStorageFault(null)).toBeNull();
  });
});
