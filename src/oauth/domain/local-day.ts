/** The UTC offset (ms) of a time zone at one instant, from the platform's time-zone data. */
export function utcOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return asUtc - Math.floor(at / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/** The instant a local wall-clock time (given as if it were UTC) happens in `timeZone`. */
function instantOfLocal(timeZone: string, localAsUtc: number): number {
  // Two rounds settle the offset on either side of a daylight-saving change.
  const guess = localAsUtc - utcOffsetMs(timeZone, localAsUtc);
  return localAsUtc - utcOffsetMs(timeZone, guess);
}

/** The account's calendar day around `at` in its time zone: [start, end) as epoch ms. */
export function localDay(timeZone: string, at: number): { start: number; end: number } {
  const local = at + utcOffsetMs(timeZone, at);
  const midnight = Math.floor(local / DAY_MS) * DAY_MS;
  return { start: instantOfLocal(timeZone, midnight), end: instantOfLocal(timeZone, midnight + DAY_MS) };
}
