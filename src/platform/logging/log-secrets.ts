import type { AppConfig } from '../config/config';

const REDACTED = '[REDACTED]';

/**
 * Shorter values are not redacted by value: a short METRICS_TOKEN would otherwise blank every
 * occurrence of a common word in the log. The admin key (16+) and the session secret (32+) are longer.
 */
const MIN_LENGTH = 8;

/**
 * The secret values this service was given or made (the admin key, the metrics token, the session
 * secret, the signing keys, credentials in the store URLs): redacted from every log line by value,
 * whatever field, query name or path segment carries them. The nets by name and by shape
 * (redact-url.ts, pino's paths) cannot know every name a client may put a value under
 * (`?admin_key=`, `?session=`, `?sig=`); the value itself is known.
 */
export class LogSecrets {
  /** Each secret as written and as it appears inside a JSON string, longest first. */
  private forms: string[] = [];

  add(...secrets: (string | null | undefined)[]): this {
    for (const secret of secrets) {
      if (typeof secret !== 'string' || secret.length < MIN_LENGTH) continue;
      for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
        if (!this.forms.includes(form)) this.forms.push(form);
      }
    }
    this.forms.sort((a, b) => b.length - a.length);
    return this;
  }

  get size(): number {
    return this.forms.length;
  }

  /** The text with every known secret replaced by `[REDACTED]`; the same string when none is in it. */
  redact(text: string): string {
    let out = text;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  }
}

/** The secrets a configuration holds, in the spellings they may be sent or logged in. */
export function configSecrets(config: AppConfig): string[] {
  const secrets: (string | null)[] = [config.adminApiKey, config.metricsToken];
  if (config.sessionSecret) secrets.push(config.sessionSecret.toString('utf8'));
  for (const { secret } of config.signingKeys ?? []) {
    secrets.push(secret.toString('base64'), secret.toString('base64').replace(/=+$/, ''), secret.toString('base64url'));
  }
  for (const url of [config.counterStoreUrl, config.eventStoreConnectionString]) secrets.push(...urlCredentials(url));
  return secrets.filter((s): s is string => s !== null);
}

/** The password of a `scheme://user:password@host` URL, as written and decoded. */
function urlCredentials(url: string | null): string[] {
  if (url === null) return [];
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:([^/@]+)@/i.exec(url);
  if (!match) return [];
  const written = match[1]!;
  let decoded = written;
  try {
    decoded = decodeURIComponent(written);
  } catch {
    // malformed escapes: the text as written is what would be logged
  }
  return [written, decoded];
}

const byLogger = new WeakMap<object, LogSecrets>();

/** Associates a logger with the secrets its stream redacts (createLogger does it). */
export function rememberLogSecrets(logger: object, secrets: LogSecrets): void {
  byLogger.set(logger, secrets);
}

/** The secrets a logger made by createLogger redacts, to add those known only later (the generated admin key). */
export function logSecretsOf(logger: object): LogSecrets | undefined {
  return byLogger.get(logger);
}
