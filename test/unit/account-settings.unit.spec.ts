import {
  defaultAccountSettings,
  isKnownTimeZone,
  uiDomainOf,
  utcOffsetAt,
} from '../../src/directory/domain/account-settings';

describe('account settings', () => {
  it("the UTC offset is the zone's at the given moment, daylight saving included", () => {
    // New York: EDT (-04:00) in July, EST (-05:00) in January.
    expect(utcOffsetAt('America/New_York', Date.UTC(2026, 6, 1, 12))).toEqual({
      utcOffset: '-04:00',
      utcOffsetMilliseconds: -14_400_000,
    });
    expect(utcOffsetAt('America/New_York', Date.UTC(2026, 0, 15, 12))).toEqual({
      utcOffset: '-05:00',
      utcOffsetMilliseconds: -18_000_000,
    });
    // The switch itself: 2026-03-08 02:00 EST is 07:00 UTC.
    expect(utcOffsetAt('US/Eastern', Date.UTC(2026, 2, 8, 6, 59, 59)).utcOffset).toBe('-05:00');
    expect(utcOffsetAt('US/Eastern', Date.UTC(2026, 2, 8, 7, 0, 0)).utcOffset).toBe('-04:00');
    // Southern hemisphere: Sydney is +11:00 in January, +10:00 in July.
    expect(utcOffsetAt('Australia/Sydney', Date.UTC(2026, 0, 15)).utcOffsetMilliseconds).toBe(39_600_000);
    expect(utcOffsetAt('Australia/Sydney', Date.UTC(2026, 6, 15)).utcOffset).toBe('+10:00');
    // Half-hour zones and UTC itself.
    expect(utcOffsetAt('Asia/Kolkata', Date.UTC(2026, 0, 1))).toEqual({
      utcOffset: '+05:30',
      utcOffsetMilliseconds: 19_800_000,
    });
    expect(utcOffsetAt('UTC', Date.UTC(2026, 0, 1))).toEqual({ utcOffset: '+00:00', utcOffsetMilliseconds: 0 });
  });

  it('defaults and UI domains follow the hublet', () => {
    expect(defaultAccountSettings('na1')).toEqual({
      accountType: 'STANDARD',
      timeZone: 'America/New_York',
      companyCurrency: 'USD',
      additionalCurrencies: [],
    });
    expect(defaultAccountSettings('eu1')).toMatchObject({ timeZone: 'Europe/Berlin', companyCurrency: 'EUR' });
    expect(uiDomainOf('na1')).toBe('app.hubspot.com');
    expect(uiDomainOf('eu1')).toBe('app-eu1.hubspot.com');
    for (const hublet of ['na1', 'na2', 'na3', 'eu1', 'ap1'])
      expect(isKnownTimeZone(defaultAccountSettings(hublet).timeZone)).toBe(true);
  });

  it('time zones are checked against the runtime database', () => {
    expect(isKnownTimeZone('Europe/Paris')).toBe(true);
    expect(isKnownTimeZone('US/Eastern')).toBe(true);
    expect(isKnownTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isKnownTimeZone('')).toBe(false);
    expect(isKnownTimeZone('Europe/Paris\u0000')).toBe(false);
  });
});

describe('offsets of odd zones', () => {
  it('reads second-precision historical offsets and every zone the runtime lists', () => {
    // Monrovia kept -00:44:30 until 1972.
    expect(utcOffsetAt('Africa/Monrovia', 0).utcOffsetMilliseconds).toBe(-(44 * 60 + 30) * 1000);
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      expect(isKnownTimeZone(zone)).toBe(true);
      expect(Number.isInteger(utcOffsetAt(zone, Date.UTC(2026, 10, 22)).utcOffsetMilliseconds)).toBe(true);
    }
  });
});
