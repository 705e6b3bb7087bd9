import { toFrozenRecorded, toRecorded, type EventRow } from '../../src/platform/event-store/sqlite-row-format';

/**
 * A stored row read as an event parses its data only when the data is read: readers of the whole
 * feed look at the type first, so an event none of them handles (a webhook attempt on the API's
 * thread) costs no parse. Otherwise it is the plain event it always was.
 */
describe('a recorded event’s data', () => {
  const row = (data: string): EventRow => ({
    position: 9,
    stream_id: 's-1',
    revision: 2,
    event_id: '0190b0c4-0d2c-7b1e-9a1f-2a3b4c5d6e7f',
    type: 't.Thing',
    data,
    metadata: JSON.stringify(['corr', 'test:actor', 1_700_000_000_000]),
  });

  it('is parsed when first read, once: a row whose data is not JSON fails only the reader of its data', () => {
    const broken = toRecorded(row('{not json'));
    expect(broken.type).toBe('t.Thing');
    expect(broken.metadata).toMatchObject({ actor: 'test:actor', correlationId: 'corr' });
    expect(() => broken.data).toThrow(SyntaxError);

    const event = toRecorded(row('{"n":1,"list":[{"a":1}]}'));
    const first = event.data;
    expect(first).toEqual({ n: 1, list: [{ a: 1 }] });
    expect(event.data).toBe(first); // not parsed again
  });

  it('behaves as a plain property: spread, JSON, equality, and assignment on an unshared event', () => {
    const event = toRecorded(row('{"n":1}'));
    expect({ ...event }.data).toEqual({ n: 1 });
    expect(JSON.parse(JSON.stringify(event))).toMatchObject({ type: 't.Thing', data: { n: 1 } });
    expect(event).toEqual({
      streamId: 's-1',
      revision: 2,
      position: 9,
      type: 't.Thing',
      data: { n: 1 },
      metadata: expect.objectContaining({ occurredAt: 1_700_000_000_000 }),
    });
    event.data = { n: 2 };
    expect(event.data).toEqual({ n: 2 });
  });

  it('shared (frozen): the event, its metadata and, once read, its data cannot be changed', () => {
    const event = toFrozenRecorded(row('{"n":1,"list":[{"a":1}]}'));
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event.metadata)).toBe(true);
    const data = event.data as { list: Array<{ a: number }> };
    expect(Object.isFrozen(data)).toBe(true);
    expect(Object.isFrozen(data.list[0])).toBe(true);
    expect(() => {
      (event as { type: string }).type = 'other';
    }).toThrow(TypeError);
  });
});
