import type { ErrorDetail } from '../../platform/errors/hubspot-error';

/** HubSpot's account types (PortalInformationResponse.accountType). */
export const ACCOUNT_TYPES = ['STANDARD', 'APP_DEVELOPER', 'DEVELOPER_TEST', 'SANDBOX'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** What an account's owner chooses in its settings; everything else in account-info follows from the hublet. */
export interface AccountSettings {
  accountType: AccountType;
  /** An IANA time zone name (`America/New_York`; links such as `US/Eastern` are accepted as given). */
  timeZone: string;
  /** ISO 4217 code. */
  companyCurrency: string;
  /** ISO 4217 codes, without the company currency, each once. */
  additionalCurrencies: string[];
}

/**
 * Settings an account has until someone changes them, by hublet: the time zone and currency of
 * the region the hublet's data centre serves (our choice; HubSpot asks at sign-up). Accounts
 * created before settings existed read these too.
 */
const REGION_DEFAULTS: Record<string, { timeZone: string; companyCurrency: string }> = {
  na1: { timeZone: 'America/New_York', companyCurrency: 'USD' },
  na2: { timeZone: 'America/New_York', companyCurrency: 'USD' },
  na3: { timeZone: 'America/New_York', companyCurrency: 'USD' },
  eu1: { timeZone: 'Europe/Berlin', companyCurrency: 'EUR' },
  ap1: { timeZone: 'Australia/Sydney', companyCurrency: 'AUD' },
};

export function defaultAccountSettings(hublet: string): AccountSettings {
  const region = REGION_DEFAULTS[hublet] ?? REGION_DEFAULTS.na1!;
  return { accountType: 'STANDARD', ...region, additionalCurrencies: [] };
}

/** HubSpot's UI host for a hublet: `app.hubspot.com` for na1, `app-<hublet>.hubspot.com` elsewhere. */
export function uiDomainOf(hublet: string): string {
  return hublet === 'na1' ? 'app.hubspot.com' : `app-${hublet}.hubspot.com`;
}

/** A change of some settings; absent fields stay as they are. */
export type AccountSettingsPatch = Partial<AccountSettings>;

const MAX_ADDITIONAL_CURRENCIES = 100;

let knownCurrencies: ReadonlySet<string> | undefined;
function isKnownCurrency(code: string): boolean {
  knownCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  return knownCurrencies.has(code);
}

/**
 * Whether the runtime's time-zone database knows the name (canonical names and links alike) and
 * its offset can be read, so account-info never fails on a stored zone.
 */
export function isKnownTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    utcOffsetAt(name, 0);
    return true;
  } catch {
    return false;
  }
}

/** `settings` merged with `patch`, or the problems with the patch (one per bad field). */
export function applySettingsPatch(
  settings: AccountSettings,
  patch: AccountSettingsPatch,
): { ok: true; settings: AccountSettings } | { ok: false; errors: ErrorDetail[] } {
  const next: AccountSettings = {
    accountType: patch.accountType ?? settings.accountType,
    timeZone: patch.timeZone ?? settings.timeZone,
    companyCurrency: patch.companyCurrency ?? settings.companyCurrency,
    additionalCurrencies: patch.additionalCurrencies ?? settings.additionalCurrencies,
  };
  const errors: ErrorDetail[] = [];
  if (!(ACCOUNT_TYPES as readonly string[]).includes(next.accountType)) {
    errors.push({
      message: `accountType must be one of ${ACCOUNT_TYPES.join(', ')}`,
      in: 'accountType',
      code: 'INVALID',
    });
  }
  if (!isKnownTimeZone(next.timeZone)) {
    errors.push({ message: `Unknown time zone: ${next.timeZone.slice(0, 64)}`, in: 'timeZone', code: 'INVALID' });
  }
  if (!isKnownCurrency(next.companyCurrency)) {
    errors.push({
      message: `Unknown ISO 4217 currency: ${next.companyCurrency.slice(0, 16)}`,
      in: 'companyCurrency',
      code: 'INVALID',
    });
  }
  if (next.additionalCurrencies.length > MAX_ADDITIONAL_CURRENCIES) {
    errors.push({
      message: `At most ${MAX_ADDITIONAL_CURRENCIES} additional currencies`,
      in: 'additionalCurrencies',
      code: 'INVALID',
    });
  } else {
    next.additionalCurrencies.forEach((code, i) => {
      const field = `additionalCurrencies[${i}]`;
      if (!isKnownCurrency(code)) {
        errors.push({ message: `Unknown ISO 4217 currency: ${code.slice(0, 16)}`, in: field, code: 'INVALID' });
      } else if (code === next.companyCurrency) {
        errors.push({ message: `${code} is the company currency`, in: field, code: 'INVALID' });
      } else if (next.additionalCurrencies.indexOf(code) !== i) {
        errors.push({ message: `${code} is listed twice`, in: field, code: 'INVALID' });
      }
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, settings: next };
}

export function sameSettings(a: AccountSettings, b: AccountSettings): boolean {
  return (
    a.accountType === b.accountType &&
    a.timeZone === b.timeZone &&
    a.companyCurrency === b.companyCurrency &&
    a.additionalCurrencies.length === b.additionalCurrencies.length &&
    a.additionalCurrencies.every((c, i) => b.additionalCurrencies[i] === c)
  );
}

/**
 * The zone's offset from UTC at `at` (epoch ms), daylight saving included, from the runtime's
 * time-zone database: `{ utcOffset: '-04:00', utcOffsetMilliseconds: -14400000 }`.
 */
export function utcOffsetAt(timeZone: string, at: number): { utcOffset: string; utcOffsetMilliseconds: number } {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(at))
    .find((p) => p.type === 'timeZoneName')?.value;
  // 'GMT' for UTC itself, otherwise 'GMT+05:30' / 'GMT-04:00'.
  const match = name ? /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name) : null;
  if (!match) throw new Error(`cannot read the UTC offset of ${timeZone}`);
  const sign = match[1] === '-' ? -1 : 1;
  const minutes = Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  const milliseconds = sign * (minutes * 60_000 + Number(match[4] ?? 0) * 1000);
  const abs = Math.abs(minutes);
  const utcOffset = `${milliseconds < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return { utcOffset, utcOffsetMilliseconds: milliseconds === 0 ? 0 : milliseconds };
}
