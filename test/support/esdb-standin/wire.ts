/*
 * Protobuf messages of the EventStoreDB stand-in, built with the classes @eventstore/db-client
 * itself ships (generated/*_pb.js), so the client reads exactly what it would read from a server.
 */
import * as grpc from '@grpc/grpc-js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import codePb from '@eventstore/db-client/generated/code_pb.js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';
import type { AppendReq, BatchAppendReq, ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb.js';
import type { StreamIdentifier } from '@eventstore/db-client/generated/shared_pb.js';
import type { AppendOutcome, ExpectedRevision, ProposedEvent, StoredRecord } from './log';

export { streamsPb, sharedPb };

export const streamName = (identifier: StreamIdentifier | undefined): string =>
  identifier ? Buffer.from(identifier.getStreamName_asU8()).toString('utf8') : '';

const identifierOf = (streamId: string): StreamIdentifier =>
  new sharedPb.StreamIdentifier().setStreamName(Buffer.from(streamId, 'utf8'));

const uuidString = (id: { getString(): string; hasStructured(): boolean } | undefined): string => {
  if (!id || id.hasStructured()) throw new Error('the stand-in reads only string UUIDs');
  return id.getString();
};

export const proposedOf = (message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage): ProposedEvent => {
  const map = message.getMetadataMap();
  return {
    id: uuidString(message.getId()),
    type: map.get('type') ?? '',
    contentType: map.get('content-type') ?? 'application/octet-stream',
    data: Buffer.from(message.getData_asU8()),
    metadata: Buffer.from(message.getCustomMetadata_asU8()),
  };
};

/** Expected revision of a unary append's options. */
export function expectedOfAppend(options: AppendReq.Options): ExpectedRevision {
  if (options.hasRevision()) return { kind: 'revision', revision: Number(options.getRevision()) };
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  return { kind: 'any' };
}

export function expectedOfBatch(options: BatchAppendReq.Options): ExpectedRevision {
  if (options.hasStreamPosition()) return { kind: 'revision', revision: Number(options.getStreamPosition()) };
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  return { kind: 'any' };
}

export function appendResp(outcome: AppendOutcome, expected: ExpectedRevision): streamsPb.AppendResp {
  const resp = new streamsPb.AppendResp();
  if (outcome.ok) {
    const success = new streamsPb.AppendResp.Success().setCurrentRevision(String(outcome.currentRevision));
    if (outcome.position === null) success.setNoPosition(new sharedPb.Empty());
    else
      success.setPosition(
        new streamsPb.AppendResp.Position()
          .setCommitPosition(String(outcome.position))
          .setPreparePosition(String(outcome.position)),
      );
    return resp.setSuccess(success);
  }
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (outcome.current === null) wrong.setCurrentNoStream(new sharedPb.Empty());
  else wrong.setCurrentRevision(String(outcome.current));
  if (expected.kind === 'revision') wrong.setExpectedRevision(String(expected.revision));
  else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
  else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
  else wrong.setExpectedAny(new sharedPb.Empty());
  return resp.setWrongExpectedVersion(wrong);
}

/** A batch-append reply; a refusal travels as a google.rpc.Status whose details name the error. */
export function batchAppendResp(
  correlationId: string,
  streamId: string,
  outcome: AppendOutcome,
  expected: ExpectedRevision,
): streamsPb.BatchAppendResp {
  const resp = new streamsPb.BatchAppendResp()
    .setCorrelationId(new sharedPb.UUID().setString(correlationId))
    .setStreamIdentifier(identifierOf(streamId));
  if (expected.kind === 'revision') resp.setStreamPosition(String(expected.revision));
  else if (expected.kind === 'no_stream') resp.setNoStream(new emptyPb.Empty());
  else if (expected.kind === 'stream_exists') resp.setStreamExists(new emptyPb.Empty());
  else resp.setAny(new emptyPb.Empty());
  if (outcome.ok) {
    const success = new streamsPb.BatchAppendResp.Success().setCurrentRevision(String(outcome.currentRevision));
    if (outcome.position === null) success.setNoPosition(new emptyPb.Empty());
    else
      success.setPosition(
        new sharedPb.AllStreamPosition()
          .setCommitPosition(String(outcome.position))
          .setPreparePosition(String(outcome.position)),
      );
    return resp.setSuccess(success);
  }
  const wrong = new sharedPb.WrongExpectedVersion();
  if (outcome.current === null) wrong.setCurrentNoStream(new emptyPb.Empty());
  else wrong.setCurrentStreamRevision(String(outcome.current));
  if (expected.kind === 'revision') wrong.setExpectedStreamPosition(String(expected.revision));
  else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(new emptyPb.Empty());
  else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(new emptyPb.Empty());
  else wrong.setExpectedAny(new emptyPb.Empty());
  const details = new anyPb.Any();
  details.pack(wrong.serializeBinary(), 'event_store.client.WrongExpectedVersion');
  const status = new statusPb.Status()
    .setCode(codePb.Code.FAILED_PRECONDITION)
    .setMessage('WrongExpectedVersion')
    .setDetails(details);
  return resp.setError(status);
}

/** A record as a ReadResp event; positions are given for $all reads, not for stream reads. */
export function eventResp(r: StoredRecord, withPosition: boolean): ReadResp {
  const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(new sharedPb.UUID().setString(r.id))
    .setStreamIdentifier(identifierOf(r.streamId))
    .setStreamRevision(String(r.revision))
    .setPreparePosition(String(r.position))
    .setCommitPosition(String(r.position))
    .setCustomMetadata(r.metadata)
    .setData(r.data);
  recorded.getMetadataMap().set('type', r.type).set('content-type', r.contentType).set('created', String(r.created));
  const event = new streamsPb.ReadResp.ReadEvent().setEvent(recorded);
  if (withPosition) event.setCommitPosition(String(r.position));
  else event.setNoPosition(new sharedPb.Empty());
  return new streamsPb.ReadResp().setEvent(event);
}

export const checkpointResp = (position: number): ReadResp =>
  new streamsPb.ReadResp().setCheckpoint(
    new streamsPb.ReadResp.Checkpoint().setCommitPosition(String(position)).setPreparePosition(String(position)),
  );

export const confirmationResp = (id: string): ReadResp =>
  new streamsPb.ReadResp().setConfirmation(new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(id));

export const caughtUpResp = (): ReadResp => new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp());

export const streamNotFoundResp = (streamId: string): ReadResp =>
  new streamsPb.ReadResp().setStreamNotFound(
    new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(identifierOf(streamId)),
  );

/** A server filter (event type or stream name; regex or prefixes) as a predicate, or null for none. */
export function filterOf(options: ReadReq.Options): { matches: (r: StoredRecord) => boolean; interval: number } | null {
  if (!options.hasFilter()) return null;
  const filter = options.getFilter()!;
  const onType = filter.hasEventType();
  const expression = onType ? filter.getEventType() : filter.getStreamIdentifier();
  const prefixes = expression?.getPrefixList() ?? [];
  const regex = expression?.getRegex() ? new RegExp(expression.getRegex()) : null;
  const test = (value: string) =>
    prefixes.length > 0 ? prefixes.some((p) => value.startsWith(p)) : regex ? regex.test(value) : true;
  // The server's read batch (32) is the window when the client sends `count`; the checkpoint
  // interval is the window times the client's multiplier.
  const window = filter.hasMax() ? filter.getMax() : 32;
  return {
    matches: (r) => test(onType ? r.type : r.streamId),
    interval: Math.max(1, window * Math.max(1, filter.getCheckpointintervalmultiplier())),
  };
}

/** A gRPC error with EventStoreDB's `exception` metadata (how the server names its errors). */
export function esdbError(code: grpc.status, details: string, metadata: Record<string, string> = {}) {
  const md = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) md.set(key, value);
  return { code, details, metadata: md };
}
