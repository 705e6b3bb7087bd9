import pino from 'pino';
import { isoTimeOncePerMs } from '../../src/platform/logging/logger';

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
