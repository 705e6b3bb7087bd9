import { metastreamOf, StandInLog, type ProposedEvent } from '../support/esdb-standin/log';

/*
 * The EventStoreDB stand-in's log (test/support/esdb-standin/log.ts) on the rules the adapter
 * relies on and the gRPC contract run does not reach: $maxAge, a partly repeated batch under
 * 'any', positions that are no record's, backward reads.
 */

const event = (type: string, data: unknown = {}): ProposedEvent => ({
  id: crypto.randomUUID(),
  type,
  contentType: 'application/json',
  data: Buffer.from(JSON.stringify(data)),
  metadata: Buffer.from('{}'),
});

describe('the EventStoreDB stand-in log', () => {
  it('starts with system records, and positions grow like byte offsets', () => {
    const log = new StandInLog();
    expect(log.records.every((r) => r.streamId.startsWith('$'))).toBe(true);
    log.append('s', [event('t.A', { big: 'x'.repeat(500) }), event('t.B')], { kind: 'no_stream' });
    const positions = log.records.map((r) => r.position);
    for (let i = 1; i < positions.length; i++) expect(positions[i]! - positions[i - 1]!).toBeGreaterThan(96);
    expect(positions.at(-1)! - positions.at(-2)!).toBeGreaterThan(500); // the big record takes its size
  });

  it('an idempotent re-append answers the original revision without a position; a partial repeat is refused', () => {
    const log = new StandInLog();
    const [a, b] = [event('t.A'), event('t.B')];
    expect(log.append('s', [a, b], { kind: 'no_stream' })).toMatchObject({ ok: true, currentRevision: 1 });
    log.append('s', [event('t.C')], { kind: 'revision', revision: 1 });
    expect(log.append('s', [a, b], { kind: 'no_stream' })).toEqual({ ok: true, currentRevision: 1, position: null });
    expect(log.append('s', [a, b], { kind: 'any' })).toEqual({ ok: true, currentRevision: 1, position: null });
    expect(log.append('s', [a, event('t.X')], { kind: 'any' })).toEqual({ ok: false, current: 2 });
    expect(log.append('s', [event('t.Y')], { kind: 'revision', revision: 0 })).toEqual({ ok: false, current: 2 });
    expect(log.append('new', [event('t.Z')], { kind: 'stream_exists' })).toEqual({ ok: false, current: null });
  });

  it('applies $tb and $maxAge from the metastream to stream reads (not to $all)', () => {
    let now = Date.UTC(2026, 0, 1);
    const log = new StandInLog(() => now);
    log.append('s', [event('t.Old1'), event('t.Old2')], { kind: 'no_stream' });
    now += 120_000;
    log.append('s', [event('t.New')], { kind: 'any' });
    log.append(metastreamOf('s'), [event('$metadata', { $maxAge: 60 })], { kind: 'any' });
    const types = () => (log.readStream('s', 'start', false, 100) as Array<{ type: string }>).map((r) => r.type);
    expect(types()).toEqual(['t.New']);
    log.append(metastreamOf('s'), [event('$metadata', { $tb: 1 })], { kind: 'any' });
    expect(types()).toEqual(['t.Old2', 't.New']);
    const all = log.readAll('start', false, 100);
    expect(all !== 'invalid-position' && all.filter((r) => r.streamId === 's')).toHaveLength(3);
  });

  it('reads $all forwards from a record including it, backwards below it; other positions are invalid', () => {
    const log = new StandInLog();
    log.append('s', [event('t.A'), event('t.B'), event('t.C')], { kind: 'no_stream' });
    const [, b] = log.records.filter((r) => r.streamId === 's');
    const forwards = log.readAll(b!.position, false, 10);
    expect(forwards !== 'invalid-position' && forwards.map((r) => r.type)).toEqual(['t.B', 't.C']);
    const backwards = log.readAll(b!.position, true, 10);
    expect(backwards !== 'invalid-position' && backwards[0]!.type).toBe('t.A');
    expect(log.readAll(b!.position + 1, false, 10)).toBe('invalid-position');
    expect(log.readAll(log.endPosition, false, 10)).toEqual([]);
    expect(log.readStream('missing', 'start', false, 10)).toBe('not-found');
    expect((log.readStream('s', 'end', true, 2) as Array<{ type: string }>).map((r) => r.type)).toEqual(['t.C', 't.B']);
  });
});
