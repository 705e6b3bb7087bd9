/*
 * A wire-level stand-in for EventStoreDB: a gRPC server (@grpc/grpc-js) on the service definitions
 * @eventstore/db-client ships, over the in-memory log of ./log. It serves what the adapter and the
 * client call (ServerFeatures, Streams.Read/Append/BatchAppend) and answers UNIMPLEMENTED, loudly,
 * to everything else. Clients reach it through loopback TCP fronts, so a test can drop, cut off and
 * restore connections, and restart the server, as a network or a node would.
 *
 * It speaks EventStoreDB's protocol so the adapter, the client's own internals and several service
 * instances can be tested here; it is not EventStoreDB's engine (no cluster, no disk, no scavenge).
 */
import * as grpc from '@grpc/grpc-js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import featuresGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import featuresPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import type {
  AppendReq,
  AppendResp,
  BatchAppendReq,
  BatchAppendResp,
  ReadReq,
  ReadResp,
} from '@eventstore/db-client/generated/streams_pb.js';
import { createServer, connect, type Server as NetServer, type Socket } from 'node:net';
import { StandInLog, type AllFrom, type ExpectedRevision, type ProposedEvent, type StoredRecord } from './log';
import {
  appendResp,
  batchAppendResp,
  caughtUpResp,
  checkpointResp,
  confirmationResp,
  esdbError,
  eventResp,
  expectedOfAppend,
  expectedOfBatch,
  filterOf,
  proposedOf,
  streamName,
  streamNotFoundResp,
  streamsPb,
} from './wire';

/** What the next append (unary or batch) meets. */
export type AppendFault =
  /** The connection drops before the append is written. */
  | { kind: 'drop-before-commit' }
  /** The append is written, then the connection drops before the reply. */
  | { kind: 'drop-after-commit' }
  /** Written, answered only after `ms` (past the client's deadline when it is shorter). */
  | { kind: 'hold'; ms: number }
  | { kind: 'unavailable' }
  /** NotLeader naming this same node as the leader (the client reconnects and the caller resends). */
  | { kind: 'not-leader' };

/** EventStoreDB's largest append (1 MiB by default). */
const MAX_APPEND_SIZE = 1024 * 1024;

/** One loopback port clients connect to, piped to the gRPC server; it can be cut off. */
export class Front {
  readonly port: number;
  private readonly server: NetServer;
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  /** Local ports of the upstream sockets: how a call's peer tells which front it came through. */
  readonly upstreamPorts = new Set<number>();

  private constructor(server: NetServer, port: number) {
    this.server = server;
    this.port = port;
  }

  static async open(port: number, backend: () => number): Promise<Front> {
    const opened: { front?: Front } = {};
    const server = createServer((socket) => opened.front?.accept(socket, backend()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const front = new Front(server, (server.address() as { port: number }).port);
    opened.front = front;
    return front;
  }

  private accept(socket: Socket, backendPort: number): void {
    if (this.refusing) return void socket.destroy();
    const upstream = connect(backendPort, '127.0.0.1');
    this.sockets.add(socket).add(upstream);
    upstream.once('connect', () => {
      const local = upstream.localPort;
      if (local !== undefined) {
        this.upstreamPorts.add(local);
        upstream.once('close', () => this.upstreamPorts.delete(local));
      }
    });
    const end = () => {
      socket.destroy();
      upstream.destroy();
      this.sockets.delete(socket);
      this.sockets.delete(upstream);
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    socket.pipe(upstream);
    upstream.pipe(socket);
  }

  /** Drops every open connection (the client sees UNAVAILABLE and reconnects). */
  drop(): void {
    for (const s of [...this.sockets]) s.destroy();
  }

  /** Drops every connection and refuses new ones until restore(). */
  cut(): void {
    this.refusing = true;
    this.drop();
  }

  restore(): void {
    this.refusing = false;
  }

  connectionString(): string {
    return `esdb://127.0.0.1:${this.port}?tls=false`;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface OpenSubscription {
  call: grpc.ServerWritableStream<ReadReq, ReadResp>;
  stop: () => void;
}

interface PendingBatch {
  streamId: string;
  expected: ExpectedRevision;
  events: ProposedEvent[];
}

export interface StandInOptions {
  /** Port of the first front (0: any free one). */
  port?: number;
  now?: () => number;
  /** Written to for every call the stand-in does not implement (default: stderr). */
  warn?: (message: string) => void;
}

export class EsdbStandIn {
  readonly log: StandInLog;
  /** Faults for the next appends, in order. */
  readonly appendFaults: AppendFault[] = [];
  /** Appends to streams this matches make the server fail the whole call they arrived on. */
  poisonStreams: ((streamId: string) => boolean) | null = null;
  /**
   * While true, appends wait (unwritten, unanswered) until releaseReplies() or a poisoned append
   * arrives: so that several are waiting on one connection when a fault strikes.
   */
  holdReplies = false;
  /** Subscriptions are refused with this until it is cleared. */
  refuseSubscriptions: 'access-denied' | null = null;
  /**
   * After a batch-append call is cut with appends pending, the next batch-append call receives a
   * reply for one of those (a late reply after a reconnect).
   */
  lateReplyAfterReconnect = false;
  /** Calls received per method, and append requests per stream. */
  readonly calls = new Map<string, number>();
  readonly appendsPerStream = new Map<string, number>();
  readonly unimplemented: string[] = [];
  /** Where each subscription to $all started (exclusive): a position, or 'end'. */
  readonly subscriptionStarts: Array<number | 'end'> = [];
  readonly fronts: Front[] = [];
  private server: grpc.Server | null = null;
  private backendPort = 0;
  private readonly subscriptions = new Set<OpenSubscription>();
  private readonly held: Array<() => void> = [];
  /** Batch appends received and not answered, by correlation id, with the call they came on. */
  private readonly unanswered = new Map<string, symbol>();
  private readonly options: StandInOptions;

  constructor(options: StandInOptions = {}) {
    this.options = options;
    this.log = new StandInLog(options.now);
  }

  /** Starts the gRPC server and the first front; resolves with that front's connection string. */
  async start(): Promise<string> {
    await this.listen();
    const front = await Front.open(this.options.port ?? 0, () => this.backendPort);
    this.fronts.push(front);
    return front.connectionString();
  }

  get connectionString(): string {
    return this.fronts[0]!.connectionString();
  }

  /** Another front port (e.g. one per service instance, to cut one instance off alone). */
  async addFront(): Promise<Front> {
    const front = await Front.open(0, () => this.backendPort);
    this.fronts.push(front);
    return front;
  }

  /** Drops every client connection. */
  dropConnections(): void {
    for (const f of this.fronts) f.drop();
  }

  /** Ends every open subscription, cleanly (the call completes) or with UNAVAILABLE. */
  endSubscriptions(how: 'complete' | 'unavailable' = 'complete'): number {
    const open = [...this.subscriptions];
    for (const s of open) {
      s.stop();
      if (how === 'complete') s.call.end();
      else s.call.emit('error', esdbError(grpc.status.UNAVAILABLE, 'Server is shutting down.'));
    }
    return open.length;
  }

  /** Stops the node and starts it again on the same port with the same log, as a restart would. */
  async restart(): Promise<void> {
    this.stopServer();
    this.dropConnections();
    await this.listen(this.backendPort);
  }

  async stop(): Promise<void> {
    this.stopServer();
    await Promise.all(this.fronts.map((f) => f.close()));
  }

  private stopServer(): void {
    for (const s of [...this.subscriptions]) s.stop();
    for (const release of this.held.splice(0)) release();
    this.server?.forceShutdown();
    this.server = null;
  }

  private count(method: string): void {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
  }

  private async listen(port = 0): Promise<void> {
    const server = new grpc.Server();
    server.addService(streamsGrpc.StreamsService, {
      read: (call: grpc.ServerWritableStream<ReadReq, ReadResp>) => this.read(call),
      append: (call: grpc.ServerReadableStream<AppendReq, AppendResp>, callback: grpc.sendUnaryData<AppendResp>) =>
        this.append(call, callback),
      batchAppend: (call: grpc.ServerDuplexStream<BatchAppendReq, BatchAppendResp>) => this.batchAppend(call),
      delete: (_call: unknown, callback: grpc.sendUnaryData<never>) => this.notImplemented('Streams.Delete', callback),
      tombstone: (_call: unknown, callback: grpc.sendUnaryData<never>) =>
        this.notImplemented('Streams.Tombstone', callback),
    });
    server.addService(featuresGrpc.ServerFeaturesService, {
      getSupportedMethods: (_call: unknown, callback: grpc.sendUnaryData<featuresPb.SupportedMethods>) => {
        this.count('ServerFeatures.GetSupportedMethods');
        const method = (name: string, features: string[] = []) =>
          new featuresPb.SupportedMethod()
            .setServiceName('event_store.client.streams.streams')
            .setMethodName(name)
            .setFeaturesList(features);
        callback(
          null,
          new featuresPb.SupportedMethods()
            .setEventStoreServerVersion('23.10.0-standin')
            .setMethodsList([method('read', ['position', 'events']), method('append'), method('batchappend')]),
        );
      },
    });
    this.backendPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    this.server = server;
  }

  private notImplemented(what: string, callback: grpc.sendUnaryData<never>): void {
    this.unimplemented.push(what);
    (this.options.warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(
      `EventStoreDB stand-in: ${what} is not implemented (UNIMPLEMENTED)`,
    );
    callback(esdbError(grpc.status.UNIMPLEMENTED, `${what} is not implemented by the EventStoreDB stand-in`), null);
  }

  // ---- reads and subscriptions ----

  private read(call: grpc.ServerWritableStream<ReadReq, ReadResp>): void {
    this.count('Streams.Read');
    const options = call.request.getOptions();
    if (!options) return void call.emit('error', esdbError(grpc.status.INVALID_ARGUMENT, 'Read without options'));
    if (options.getUuidOption()?.hasStructured()) {
      return void call.emit('error', esdbError(grpc.status.UNIMPLEMENTED, 'structured UUIDs: not in the stand-in'));
    }
    const backwards = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
    if (options.hasSubscription()) {
      if (!options.hasAll()) {
        this.unimplemented.push('Streams.Read (subscription to a stream)');
        return void call.emit(
          'error',
          esdbError(grpc.status.UNIMPLEMENTED, 'stream subscriptions: not in the stand-in'),
        );
      }
      return this.subscribeToAll(call, options);
    }
    const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
    if (options.hasStream()) {
      const stream = options.getStream()!;
      const streamId = streamName(stream.getStreamIdentifier());
      const from = stream.hasRevision() ? Number(stream.getRevision()) : stream.hasEnd() ? 'end' : 'start';
      const records = this.log.readStream(streamId, from, backwards, count);
      if (records === 'not-found') call.write(streamNotFoundResp(streamId));
      else for (const r of records) call.write(eventResp(r, false));
      return void call.end();
    }
    const all = options.getAll()!;
    const from: AllFrom = all.hasPosition()
      ? Number(all.getPosition()!.getCommitPosition())
      : all.hasEnd()
        ? 'end'
        : 'start';
    const records = this.log.readAll(from, backwards, count);
    if (records === 'invalid-position') {
      return void call.emit('error', esdbError(grpc.status.OUT_OF_RANGE, 'Invalid position.'));
    }
    const filter = filterOf(options);
    for (const r of records) if (!filter || filter.matches(r)) call.write(eventResp(r, true));
    call.end();
  }

  /**
   * EventStoreDB's catch-up subscription to $all: confirmation, then every record after the start
   * position (exclusive), then live. With a filter, a checkpoint follows every `interval` records
   * scanned and the end of the catch-up; it names the next position to scan.
   */
  private subscribeToAll(call: grpc.ServerWritableStream<ReadReq, ReadResp>, options: ReadReq.Options): void {
    if (this.refuseSubscriptions === 'access-denied') {
      return void call.emit(
        'error',
        esdbError(grpc.status.PERMISSION_DENIED, 'Access denied.', { exception: 'access-denied' }),
      );
    }
    const all = options.getAll()!;
    const start = all.hasPosition() ? Number(all.getPosition()!.getCommitPosition()) : all.hasEnd() ? 'end' : 0;
    if (typeof start === 'number' && !this.log.isValidPosition(start)) {
      return void call.emit('error', esdbError(grpc.status.OUT_OF_RANGE, 'Invalid position.'));
    }
    this.subscriptionStarts.push(start);
    const filter = filterOf(options);
    let scanned = 0;
    let last = start === 'end' ? this.log.endPosition : start;
    const deliver = (records: StoredRecord[], nextPosition: (i: number) => number) => {
      records.forEach((r, i) => {
        if (r.position <= last) return;
        last = r.position;
        if (!filter || filter.matches(r)) call.write(eventResp(r, true));
        if (filter && ++scanned % filter.interval === 0) call.write(checkpointResp(nextPosition(i)));
      });
    };
    call.write(confirmationResp(crypto.randomUUID()));
    const from = start === 'end' ? this.log.records.length : this.log.indexAt(start);
    const catchUp = this.log.records.slice(from);
    deliver(catchUp, (i) => catchUp[i + 1]?.position ?? this.log.endPosition);
    if (filter) call.write(checkpointResp(this.log.endPosition));
    call.write(caughtUpResp());
    const unsubscribe = this.log.onCommit((written) => {
      const endAfter = this.log.endPosition;
      deliver(written, (i) => written[i + 1]?.position ?? endAfter);
    });
    const open: OpenSubscription = {
      call,
      stop: () => {
        unsubscribe();
        this.subscriptions.delete(open);
      },
    };
    this.subscriptions.add(open);
    call.on('cancelled', open.stop);
    call.on('close', open.stop);
    call.on('error', open.stop);
  }

  // ---- appends ----

  private nextFault(): AppendFault | undefined {
    return this.appendFaults.shift();
  }

  /** Waits while replies are held. */
  private whenReleased(): Promise<void> {
    if (!this.holdReplies) return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }

  /** Appends waiting while replies are held. */
  get heldAppends(): number {
    return this.held.length;
  }

  /** Lets the held appends go on (written and answered, unless their connection is gone). */
  releaseReplies(): void {
    this.holdReplies = false;
    for (const release of this.held.splice(0)) release();
  }

  private countAppend(streamId: string): void {
    this.appendsPerStream.set(streamId, (this.appendsPerStream.get(streamId) ?? 0) + 1);
  }

  private notLeader(peer: string) {
    const local = Number(peer.split(':').pop());
    const front = this.fronts.find((f) => f.upstreamPorts.has(local)) ?? this.fronts[0]!;
    return esdbError(grpc.status.NOT_FOUND, 'Leader info available', {
      exception: 'not-leader',
      'leader-endpoint-host': '127.0.0.1',
      'leader-endpoint-port': String(front.port),
    });
  }

  private append(
    call: grpc.ServerReadableStream<AppendReq, AppendResp>,
    callback: grpc.sendUnaryData<AppendResp>,
  ): void {
    this.count('Streams.Append');
    let options: AppendReq.Options | undefined;
    const events: ProposedEvent[] = [];
    call.on('data', (req: AppendReq) => {
      if (req.hasOptions()) options = req.getOptions();
      else if (req.hasProposedMessage()) events.push(proposedOf(req.getProposedMessage()!));
    });
    call.on('end', () => {
      if (!options) return callback(esdbError(grpc.status.INVALID_ARGUMENT, 'Append without options'), null);
      const streamId = streamName(options.getStreamIdentifier());
      const expected = expectedOfAppend(options);
      this.countAppend(streamId);
      if (this.poisonStreams?.(streamId)) {
        this.releaseReplies();
        return callback(esdbError(grpc.status.RESOURCE_EXHAUSTED, 'Append rejected: poisoned by the test'), null);
      }
      const size = events.reduce((n, e) => n + e.data.length + e.metadata.length, 0);
      if (size > MAX_APPEND_SIZE) {
        return callback(
          esdbError(grpc.status.INVALID_ARGUMENT, 'Maximum Append Size Exceeded.', {
            exception: 'maximum-append-size-exceeded',
            'maximum-append-size': String(MAX_APPEND_SIZE),
          }),
          null,
        );
      }
      const fault = this.nextFault();
      void this.whenReleased().then(() => {
        switch (fault?.kind) {
          case 'drop-before-commit':
            return this.dropConnections();
          case 'unavailable':
            return callback(esdbError(grpc.status.UNAVAILABLE, 'Server is not ready.'), null);
          case 'not-leader':
            return callback(this.notLeader(call.getPeer()), null);
          default:
            break;
        }
        const reply = appendResp(this.log.append(streamId, events, expected), expected);
        if (fault?.kind === 'drop-after-commit') return this.dropConnections();
        if (fault?.kind === 'hold') return void setTimeout(() => callback(null, reply), fault.ms);
        callback(null, reply);
      });
    });
  }

  /**
   * The batch-append stream: requests carry a correlation id and arrive in chunks until `isFinal`;
   * replies carry the same id. A poisoned append fails the whole call, and every append waiting on
   * it with it (what 6.2.1's shared stream makes of one error).
   */
  private batchAppend(call: grpc.ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void {
    this.count('Streams.BatchAppend');
    const pending = new Map<string, PendingBatch>();
    let failed = false;
    const owner = Symbol('batch-append call');
    if (this.lateReplyAfterReconnect) {
      const orphan = [...this.unanswered].find(([, o]) => o !== owner)?.[0];
      if (orphan !== undefined) {
        this.unanswered.delete(orphan);
        call.write(
          batchAppendResp(orphan, 'late-reply', { ok: true, currentRevision: 0, position: null }, { kind: 'any' }),
        );
      }
    }
    const fail = (error: ReturnType<typeof esdbError>) => {
      if (failed) return;
      failed = true;
      call.emit('error', error);
    };
    call.on('data', (req: BatchAppendReq) => {
      if (failed) return;
      const correlationId = req.getCorrelationId()?.getString() ?? '';
      let batch = pending.get(correlationId);
      if (!batch) {
        const options = req.getOptions();
        if (!options) return fail(esdbError(grpc.status.INVALID_ARGUMENT, 'first batch request without options'));
        batch = { streamId: streamName(options.getStreamIdentifier()), expected: expectedOfBatch(options), events: [] };
        pending.set(correlationId, batch);
        this.unanswered.set(correlationId, owner);
      }
      batch.events.push(...req.getProposedMessagesList().map(proposedOf));
      if (!req.getIsFinal()) return;
      const { streamId, expected, events } = batch;
      this.countAppend(streamId);
      if (this.poisonStreams?.(streamId)) {
        this.releaseReplies();
        return fail(esdbError(grpc.status.RESOURCE_EXHAUSTED, 'Append rejected: poisoned by the test'));
      }
      const fault = this.nextFault();
      void this.whenReleased().then(() => {
        if (failed) return;
        if (fault?.kind === 'drop-before-commit') return this.dropConnections();
        if (fault?.kind === 'unavailable') return fail(esdbError(grpc.status.UNAVAILABLE, 'Server is not ready.'));
        if (fault?.kind === 'not-leader') return fail(this.notLeader(call.getPeer()));
        const outcome = this.log.append(streamId, events, expected);
        if (fault?.kind === 'drop-after-commit') return this.dropConnections();
        const reply = () => {
          pending.delete(correlationId);
          this.unanswered.delete(correlationId);
          if (!failed) call.write(batchAppendResp(correlationId, streamId, outcome, expected));
        };
        if (fault?.kind === 'hold') setTimeout(reply, fault.ms);
        else reply();
      });
    });
    call.on('end', () => call.end());
  }
}
