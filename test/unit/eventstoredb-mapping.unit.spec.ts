import { WrongExpectedVersionError } from '@eventstore/db-client';
import { PassThrough } from 'node:stream';
import type { NewEvent } from '../../src/platform/events/envelope';
import { ConcurrencyError } from '../../src/platform/event-store/concurrency-error';
import {
  backoffDelay,
  classifySubscriptionError,
  DEFAULT_BACKOFF,
  EventDecodingError,
  isUnknownAppendOutcome,
  inBatches,
  isSystemEvent,
  reportedAppendPosition,
  toConcurrencyError,
  toEsdbEventId,
  toEsdbExpectedRevision,
  toEventData,
  toGlobalPosition,
  toReadPosition,
  toRecordedEvent,
  type EsdbResolvedEvent,
} from '../../src/platform/event-store/eventstoredb-mapping';

const metadata = {
  eventId: '0b7e5f3c-1d2a-4c8e-9f60-3a1b2c4d5e6f',
  correlationId: 'corr-1',
  causationId: null,
  actor: 'user:7',
  occurredAt: 1_700_000_000_000,
};

const newEvent: NewEvent = { type: 'directory.AppRegistered', data: { appId: 42, name: 'x' }, metadata };

const resolved = (overrides: Partial<NonNullable<EsdbResolvedEvent['event']>> = {}): EsdbResolvedEvent => ({
  event: {
    streamId: 'app-42',
    type: 'directory.AppRegistered',
    isJson: true,
    revision: 3n,
    data: { appId: 42, name: 'x' },
    metadata,
    position: { commit: 1234n, prepare: 1234n },
    ...overrides,
  },
});

describe('toEsdbExpectedRevision', () => {
  it('maps the named revisions and numbers', () => {
    expect(toEsdbExpectedRevision('any')).toBe('any');
    expect(toEsdbExpectedRevision('no_stream')).toBe('no_stream');
    expect(toEsdbExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(toEsdbExpectedRevision(0)).toBe(0n);
    expect(toEsdbExpectedRevision(41)).toBe(41n);
  });

  it('refuses revisions that are not non-negative integers', () => {
    expect(() => toEsdbExpectedRevision(-1)).toThrow(RangeError);
    expect(() => toEsdbExpectedRevision(1.5)).toThrow(RangeError);
    expect(() => toEsdbExpectedRevision(Number.NaN)).toThrow(RangeError);
  });
});

describe('toConcurrencyError', () => {
  const wrong = (current: bigint | 'no_stream') =>
    new WrongExpectedVersionError(undefined, { streamName: 's-1', expected: 2n, current });

  it('maps WrongExpectedVersionError with the actual revision', () => {
    const error = toConcurrencyError(wrong(5n), 's-1', 2);
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(error).toMatchObject({ streamId: 's-1', expected: 2, actual: 5 });
  });

  it("maps a missing stream to 'no_stream'", () => {
    expect(toConcurrencyError(wrong('no_stream'), 's-1', 'stream_exists')).toMatchObject({
      expected: 'stream_exists',
      actual: 'no_stream',
    });
    expect(toConcurrencyError(wrong(-1n), 's-1', 0)?.actual).toBe('no_stream');
  });

  it('recognises the error by its type tag too (another copy of the client)', () => {
    const foreign = { type: 'wrong-expected-version', actualVersion: 3n };
    expect(toConcurrencyError(foreign, 's-1', 1)?.actual).toBe(3);
  });

  it('returns null for other errors', () => {
    expect(toConcurrencyError(new Error('boom'), 's-1', 1)).toBeNull();
    expect(toConcurrencyError({ type: 'unavailable' }, 's-1', 1)).toBeNull();
    expect(toConcurrencyError(undefined, 's-1', 1)).toBeNull();
  });
});

describe('toEsdbEventId', () => {
  it('keeps UUIDs (lower-cased)', () => {
    expect(toEsdbEventId(metadata.eventId)).toBe(metadata.eventId);
    expect(toEsdbEventId('0B7E5F3C-1D2A-4C8E-9F60-3A1B2C4D5E6F')).toBe(metadata.eventId);
  });

  it('maps other ids to a stable name-based UUID', () => {
    const id = toEsdbEventId('evt_01HZX');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toEsdbEventId('evt_01HZX')).toBe(id);
    expect(toEsdbEventId('evt_01HZY')).not.toBe(id);
  });
});

describe('toEventData', () => {
  it('writes JSON data, our metadata as JSON metadata, and our event id', () => {
    expect(toEventData(newEvent)).toEqual({
      id: metadata.eventId,
      contentType: 'application/json',
      type: 'directory.AppRegistered',
      data: { appId: 42, name: 'x' },
      metadata,
    });
  });
});

describe('positions', () => {
  it('uses the commit position as the global position', () => {
    expect(toGlobalPosition({ commit: 1234n, prepare: 1234n })).toBe(1234);
    expect(toGlobalPosition(undefined)).toBeUndefined();
  });

  it('refuses positions that are unknown or not exact as numbers', () => {
    expect(toGlobalPosition({ commit: 18446744073709551615n, prepare: 18446744073709551615n })).toBeUndefined();
    expect(toGlobalPosition({ commit: BigInt(Number.MAX_SAFE_INTEGER) + 1n, prepare: 0n })).toBeUndefined();
  });

  it('turns `after` back into a read position; 0 is the start', () => {
    expect(toReadPosition(0)).toBe('start');
    expect(toReadPosition(1234)).toEqual({ commit: 1234n, prepare: 1234n });
  });

  it('trusts the reported append position only for a single event', () => {
    const result = { success: true, nextExpectedRevision: 3n, position: { commit: 900n, prepare: 900n } };
    expect(reportedAppendPosition(result, 1)).toBe(900);
    expect(reportedAppendPosition(result, 2)).toBeUndefined();
    expect(reportedAppendPosition({ ...result, position: undefined }, 1)).toBeUndefined();
    expect(reportedAppendPosition({ ...result, position: { commit: 0n, prepare: 0n } }, 1)).toBeUndefined();
  });
});

describe('toRecordedEvent', () => {
  it('converts one of our events', () => {
    expect(toRecordedEvent(resolved())).toEqual({
      streamId: 'app-42',
      revision: 3,
      position: 1234,
      type: 'directory.AppRegistered',
      data: { appId: 42, name: 'x' },
      metadata,
    });
  });

  it('falls back to the resolved commit position', () => {
    const r = resolved({ position: undefined });
    expect(toRecordedEvent({ ...r, commitPosition: 99n })?.position).toBe(99);
  });

  it('skips system events and events this service did not write', () => {
    expect(toRecordedEvent({})).toBeNull();
    expect(toRecordedEvent(resolved({ type: '$metadata' }))).toBeNull();
    expect(toRecordedEvent(resolved({ streamId: '$$app-42' }))).toBeNull();
    expect(toRecordedEvent(resolved({ isJson: false, data: new Uint8Array([1]) }))).toBeNull();
    expect(toRecordedEvent(resolved({ metadata: undefined }))).toBeNull();
    expect(toRecordedEvent(resolved({ metadata: { $correlationId: 'x' } }))).toBeNull();
    expect(toRecordedEvent(resolved({ metadata: new Uint8Array([1, 2]) }))).toBeNull();
  });

  it('throws when the server gave no usable position for our event', () => {
    const unknown = { commit: 18446744073709551615n, prepare: 18446744073709551615n };
    expect(() => toRecordedEvent(resolved({ position: unknown }))).toThrow(/log position/);
  });

  it('round-trips what toEventData wrote', () => {
    const data = toEventData(newEvent);
    const back = toRecordedEvent(resolved({ type: data.type, data: data.data, metadata: data.metadata, isJson: true }));
    expect(back).toMatchObject({ type: newEvent.type, data: newEvent.data, metadata: newEvent.metadata });
  });
});

describe('isSystemEvent', () => {
  it('flags $-types and $-streams only', () => {
    expect(isSystemEvent('$stats-1', 'x')).toBe(true);
    expect(isSystemEvent('app-1', '$>')).toBe(true);
    expect(isSystemEvent('app-1', 'directory.AppRegistered')).toBe(false);
  });
});

describe('backoffDelay', () => {
  it('starts at 100ms, doubles, and caps at 5s by default', () => {
    expect(Array.from({ length: 9 }, (_, i) => backoffDelay(i))).toEqual([
      100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000,
    ]);
    expect(DEFAULT_BACKOFF).toEqual({ initialMs: 100, maxMs: 5000 });
  });

  it('stays capped for huge attempts and treats NaN or negatives as the first attempt', () => {
    expect(backoffDelay(10_000)).toBe(5000);
    expect(backoffDelay(Number.POSITIVE_INFINITY)).toBe(5000);
    expect(backoffDelay(-3)).toBe(100);
    expect(backoffDelay(Number.NaN)).toBe(100);
  });

  it('follows custom settings', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, { initialMs: 5, maxMs: 20 }))).toEqual([5, 10, 20, 20]);
  });
});

describe('inBatches', () => {
  it('yields what is already buffered as one batch, up to the maximum', async () => {
    const source = new PassThrough({ objectMode: true });
    for (let i = 1; i <= 5; i++) source.write(i);
    source.end();
    const batches: number[][] = [];
    for await (const batch of inBatches<number>(source, 2)) batches.push(batch);
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5]);
    expect(batches.every((b) => b.length >= 1 && b.length <= 2)).toBe(true);
    expect(batches.length).toBeLessThan(5);
  });

  it('waits for items that arrive later and ends with the stream', async () => {
    const source = new PassThrough({ objectMode: true });
    const iterator = inBatches<string>(source, 100)[Symbol.asyncIterator]();
    const first = iterator.next();
    source.write('a');
    expect(await first).toEqual({ value: ['a'], done: false });
    const second = iterator.next();
    source.write('b');
    source.write('c');
    expect((await second).value).toEqual(expect.arrayContaining(['b']));
    source.end();
    const rest: string[] = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(...r.value);
    expect(rest.length).toBeLessThanOrEqual(1);
  });

  it('surfaces stream errors to the consumer', async () => {
    const source = new PassThrough({ objectMode: true });
    const iterator = inBatches<string>(source, 10)[Symbol.asyncIterator]();
    const pending = iterator.next();
    source.destroy(new Error('disconnected'));
    await expect(pending).rejects.toThrow('disconnected');
  });
});

describe('error classification', () => {
  it('resends appends only after errors that may follow a commit', () => {
    for (const type of ['deadline-exceeded', 'unavailable', 'timeout', 'cancelled', 'not-leader', 'unknown']) {
      expect(isUnknownAppendOutcome(Object.assign(new Error(type), { type }))).toBe(true);
    }
    expect(isUnknownAppendOutcome(new TypeError('undefined is not iterable'))).toBe(true);
    expect(isUnknownAppendOutcome(Object.assign(new Error('x'), { code: 14 }))).toBe(true);
    for (const type of ['access-denied', 'maximum-append-size-exceeded', 'stream-deleted', 'invalid-argument']) {
      expect(isUnknownAppendOutcome(Object.assign(new Error(type), { type }))).toBe(false);
    }
    expect(isUnknownAppendOutcome(Object.assign(new Error('x'), { code: 3 }))).toBe(false);
  });

  it('stops a subscription for good only on errors resubscribing cannot cure', () => {
    const fatal = [
      Object.assign(new Error('denied'), { type: 'access-denied' }),
      Object.assign(new Error('Invalid position.'), { code: 11 }),
      new EventDecodingError('no position'),
      new SyntaxError('Unexpected token'),
    ];
    for (const error of fatal) expect(classifySubscriptionError(error)).toBe('fatal');
    const transient = [
      Object.assign(new Error('down'), { type: 'unavailable' }),
      Object.assign(new Error('slow'), { type: 'deadline-exceeded' }),
      Object.assign(new Error('leader moved'), { type: 'not-leader' }),
      new Error('socket hang up'),
    ];
    for (const error of transient) expect(classifySubscriptionError(error)).toBe('transient');
  });
});
