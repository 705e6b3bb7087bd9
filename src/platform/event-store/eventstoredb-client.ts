import {
  EventStoreDBClient,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  type Credentials,
  type Direction,
  type Filter,
  type JSONEventData,
  type ReadPosition,
  type ReadRevision,
} from '@eventstore/db-client';
// Not re-exported by the package's index; the same parser EventStoreDBClient.connectionString uses.
import { parseConnectionString } from '@eventstore/db-client/dist/Client/parseConnectionString';
import type { EsdbResolvedEvent } from './eventstoredb-mapping';

/**
 * The few calls of @eventstore/db-client 6.2.1 the adapter makes, as a narrow interface: the real
 * client satisfies it, and unit tests drive the adapter through a scripted stand-in of it.
 */
export interface EsdbReadable extends AsyncIterable<EsdbResolvedEvent> {
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(error?: Error): unknown;
}

export interface EsdbSubscription extends EsdbReadable {
  once(event: 'confirmation', listener: () => void): unknown;
  read(): unknown;
  unsubscribe(): Promise<void>;
}

export interface EsdbClient {
  appendToStream(
    streamId: string,
    events: JSONEventData[],
    options: { expectedRevision: AppendExpectedRevision; credentials?: Credentials },
  ): Promise<EsdbAppendResult>;
  readStream(
    streamId: string,
    options: { fromRevision?: ReadRevision; maxCount?: number; direction?: Direction },
  ): EsdbReadable;
  readAll(options: { fromPosition?: ReadPosition; maxCount?: number; direction?: Direction }): EsdbReadable;
  subscribeToAll(
    options: { fromPosition: ReadPosition; filter?: Filter },
    readableOptions?: { highWaterMark?: number },
  ): EsdbSubscription;
  /**
   * The real client's; it gives the adapter its retention (eventstoredb-retention). Stand-ins may
   * omit it. It appends to the metastream through appendToStream, so it too needs `credentials`.
   */
  setStreamMetadata?(
    streamId: string,
    metadata: { truncateBefore: number },
    options?: { credentials?: Credentials },
  ): Promise<unknown>;
  dispose(): Promise<void>;
}

/**
 * Credentials sent with every append. 6.2.1's appendToStream takes its shared batch-append stream
 * unless a call carries its own credentials, and that stream rejects every waiting append on one
 * error and crashes the process on a late reply after a reconnect (fixed only in the renamed
 * client). With credentials each append is its own gRPC call. Over a plain-text connection the
 * client ignores them (nothing is sent), so any value serves; over TLS they must be the
 * connection string's user.
 */
export function appendCredentials(connectionString: string): Credentials {
  const parsed = parseConnectionString(connectionString);
  if (parsed.defaultCredentials) return parsed.defaultCredentials;
  if (parsed.tls === false) return { username: 'insecure', password: 'ignored' };
  throw new Error(
    'EVENTSTORE_CONNECTION_STRING over TLS needs a user (esdb://user:password@host:2113): appends carry it per call',
  );
}

/** Our own deadline on a read: 6.2.1 sets `deadline: Infinity` on every read and subscription. */
export class ReadDeadlineError extends Error {
  constructor(what: string, ms: number) {
    super(`EventStoreDB ${what} did not finish within ${ms} ms`);
    this.name = 'ReadDeadlineError';
  }
}

/** The real client, seen through the narrow interface. */
export function connectEsdb(connectionString: string): EsdbClient {
  return EventStoreDBClient.connectionString(connectionString) as unknown as EsdbClient;
}
