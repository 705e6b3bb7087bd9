import type { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Path segments and query parameters that carry token material: never logged. */
const SECRET_PATH = /^(\/oauth\/v1\/(?:access-tokens|refresh-tokens)\/)[^/?#]+/;
const SECRET_QUERY_NAMES = new Set([
  'code',
  'code_verifier',
  'client_secret',
  'refresh_token',
  'access_token',
  'password',
  'token',
  'hapikey',
]);
const QUERY_PARAM = /([?&])([^=&#]*)=([^&#]*)/g;

/**
 * A query parameter's name as the query parser reads it (percent-decoded, `+` as a space), so
 * `?h%61pikey=...` — which reaches the guards as `hapikey` — is redacted like `?hapikey=...`.
 */
function queryName(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced).toLowerCase();
  } catch {
    return spaced.toLowerCase();
  }
}

export function redactUrl(url: string): string {
  return url
    .replace(SECRET_PATH, '$1[REDACTED]')
    .replace(QUERY_PARAM, (whole, sep: string, name: string) =>
      SECRET_QUERY_NAMES.has(queryName(name)) ? `${sep}${name}=[REDACTED]` : whole,
    );
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          '*.password',
          '*.client_secret',
          '*.clientSecret',
          '*.refresh_token',
          '*.access_token',
          '*.code',
          '*.code_verifier',
        ],
        censor: '[REDACTED]',
      },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
    destination,
  );
}

/** Nest's logger interface on top of pino, so framework and app logs share one JSON stream. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.write('error', message, context ?? trace);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }
  private write(level: pino.Level, message: unknown, context?: string): void {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}
