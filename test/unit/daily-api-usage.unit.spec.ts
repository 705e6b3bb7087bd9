import { ManualClock } from '../support/manual-clock';
import { localDay, utcOffsetMs } from '../../src/oauth/domain/local-day';
import { DailyApiUsage } from '../../src/oauth/rate-limit/daily-api-usage';

const H = 3_600_000;

describe('an account’s day in its own time zone', () => {
  it.each([
    // [time zone, instant, local midnight before it (UTC), next local midnight (UTC)]
    ['UTC', Date.UTC(2026, 10, 22, 9), Date.UTC(2026, 10, 22), Date.UTC(2026, 10, 23)],
    ['America/New_York', Date.UTC(2026, 10, 22, 3), Date.UTC(2026, 10, 21, 5), Date.UTC(2026, 10, 22, 5)],
    ['Europe/Berlin', Date.UTC(2026, 10, 22, 23, 30), Date.UTC(2026, 10, 22, 23), Date.UTC(2026, 10, 23, 23)],
    ['Asia/Kolkata', Date.UTC(2026, 10, 22, 18, 29), Date.UTC(2026, 10, 21, 18, 30), Date.UTC(2026, 10, 22, 18, 30)],
    ['Asia/Kathmandu', Date.UTC(2026, 10, 22, 18, 15), Date.UTC(2026, 10, 22, 18, 15), Date.UTC(2026, 10, 23, 18, 15)],
    // Daylight saving starts (23-hour day) and ends (25-hour day) in New York.
    ['America/New_York', Date.UTC(2026, 2, 8, 12), Date.UTC(2026, 2, 8, 5), Date.UTC(2026, 2, 9, 4)],
    ['America/New_York', Date.UTC(2026, 10, 1, 12), Date.UTC(2026, 10, 1, 4), Date.UTC(2026, 10, 2, 5)],
  ])('%s at %d', (timeZone, at, start, end) => {
    expect(localDay(timeZone, at)).toEqual({ start, end });
  });

  it('reads offsets from the time-zone data', () => {
    expect(utcOffsetMs('Asia/Kolkata', Date.UTC(2026, 0, 1))).toBe(5.5 * H);
    expect(utcOffsetMs('America/Los_Angeles', Date.UTC(2026, 6, 1))).toBe(-7 * H);
  });
});

describe('DailyApiUsage', () => {
  it('counts per account and sums the quarter hours since a local midnight', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 4, 50));
    const usage = new DailyApiUsage(clock);
    usage.record(1);
    clock.advance(15 * 60_000); // 05:05 UTC: New York's midnight has passed
    usage.record(1);
    usage.record(1);
    usage.record(2);
    const ny = localDay('America/New_York', clock.now());
    expect(usage.countSince(1, ny.start)).toBe(2);
    expect(usage.countSince(1, localDay('UTC', clock.now()).start)).toBe(3);
    expect(usage.countSince(2, ny.start)).toBe(1);
    expect(usage.countSince(3, ny.start)).toBe(0);
  });

  it('keeps about two days of buckets per account, not more', () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 1));
    const usage = new DailyApiUsage(clock);
    for (let i = 0; i < 24 * 4 * 10; i++) {
      usage.record(7);
      clock.advance(15 * 60_000);
    }
    const buckets = (usage as unknown as { perAccount: Map<number, Map<number, number>> }).perAccount.get(7)!;
    expect(buckets.size).toBeLessThanOrEqual(200);
    expect(usage.countSince(7, clock.now() - 24 * H)).toBe(96);
  });
});
