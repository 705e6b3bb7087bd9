import { decodeGroup, decodeResult, encodeGroup, encodeResult } from '../../src/platform/event-store/sqlite-wire';
import type { WireAppend, WireGroupResult } from '../../src/platform/event-store/sqlite-writer';

describe('the writer hand-off as one string', () => {
  it('gives back every append of a group as it was, whatever characters the strings hold', () => {
    const group: WireAppend[] = [
      {
        streamId: 'refresh-token:12:34',
        expected: 7,
        events: [
          { type: 'oauth.Rotated', eventId: 'e-1', data: '{"a":"x:y\\n","b":"😀é"}', metadata: '{"c":1}' },
          { type: 't:B', eventId: 'e-2', data: '3:abc', metadata: '' },
        ],
      },
      { streamId: '', expected: 'no_stream', events: [{ type: 'x', eventId: 'e-3', data: 'null', metadata: '{}' }] },
      {
        streamId: 's',
        expected: 'any',
        events: [],
        purge: [
          [12, 'e-9'],
          [13, 'e:10'],
        ],
      },
      { streamId: 's2', expected: 'stream_exists', events: [] },
      { streamId: 's3', expected: -1, events: [] },
    ];
    expect(decodeGroup(encodeGroup(group))).toEqual(group);
    expect(decodeGroup(encodeGroup([]))).toEqual([]);
  });

  it('gives back every outcome of a result as it was', () => {
    const result: WireGroupResult = {
      written: 3,
      outcomes: [
        { ok: true, nextExpectedRevision: 4, position: 101, positions: [99, 100, 101] },
        { ok: true, nextExpectedRevision: 0, position: 7, positions: [] },
        { ok: false, conflict: { actual: 'no_stream' } },
        { ok: false, conflict: { actual: 12 } },
        { ok: false, message: 'refused\nby the test: "x"', code: 'SQLITE_CONSTRAINT_TRIGGER' },
        { ok: false, message: 'no code' },
      ],
    };
    expect(decodeResult(encodeResult(result))).toEqual(result);
    expect(decodeResult(encodeResult({ written: 0, outcomes: [] }))).toEqual({ written: 0, outcomes: [] });
  });
});
