import pino from 'pino';
import { isoTimeOncePerMs, LINE_OPTIONS } from '../../src/platform/logging/logger';
import { type RequestLine, requestLineJson } from '../../src/platform/logging/request-log';

describe('isoTimeOncePerMs (issue 29)', () => {
  it("writes what pino's isoTime writes, formatted again only when the millisecond changes", () => {
    let now = Date.UTC(2026, 10, 25, 20, 0, 0, 123);
    const time = isoTimeOncePerMs(() => now);
    const realNow = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      expect(time()).toBe(pino.stdTimeFunctions.isoTime());
      expect(time()).toBe(',"time":"2026-11-25T20:00:00.123Z"');
      now += 1;
      expect(time()).toBe(',"time":"2026-11-25T20:00:00.124Z"');
      expect(time()).toBe(pino.stdTimeFunctions.isoTime());
    } finally {
      realNow.mockRestore();
    }
  });
});

describe('requestLineJson (the request line written without pino)', () => {
  const pinoLine = (fields: RequestLine, time: string): string => {
    let written = '';
    const logger = pino({ ...LINE_OPTIONS, timestamp: () => time }, { write: (s: string) => void (written += s) });
    logger.info(fields, 'request');
    return written;
  };
  const time = ',"time":"2026-11-28T04:00:00.000Z"';

  it.each<[string, RequestLine]>([
    [
      'a routed GET',
      {
        correlationId: 'a1b2',
        method: 'GET',
        route: '/crm/v3/objects/:t/:id',
        url: '/crm/v3/objects/contacts/7?x=1',
        status: 200,
        ms: 0.42,
      },
    ],
    ['an unrouted path', { correlationId: 'c', method: 'POST', route: null, url: '/nope', status: 404, ms: 12 }],
    [
      'quotes, backslashes, control and non-ASCII characters in the URL',
      {
        correlationId: 'd',
        method: 'GET',
        route: null,
        url: '/a"b\\c\u0001\u2028é?q=[REDACTED]',
        status: 400,
        ms: 1.5,
      },
    ],
    ['a long URL', { correlationId: 'e', method: 'GET', route: null, url: `/${'x'.repeat(300)}`, status: 414, ms: 0 }],
  ])('is what pino writes for %s', (_name, fields) => {
    expect(requestLineJson(fields, time)).toBe(pinoLine(fields, time));
    expect(JSON.parse(requestLineJson(fields, time))).toEqual({
      level: 30,
      time: time.slice(9, -1),
      ...fields,
      msg: 'request',
    });
  });
});
