import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger } from 'pino';
import { LogSecrets, rememberLogSecrets } from './log-secrets';
import { redactUrl } from './redact-url';

/** Token material in URLs: see redact-url.ts. */
export { redactUrl };

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT=auto: human-readable lines on a terminal, JSON lines into a pipe or a file. */
export function resolveLogFormat(setting: 'auto' | LogFormat, stdout: { isTTY?: boolean }): LogFormat {
  if (setting !== 'auto') return setting;
  return stdout.isTTY === true ? 'pretty' : 'json';
}

/**
 * One readable line per entry for a person at a terminal (pino-pretty): time, level, the Nest
 * context in brackets, the message, then any other fields; colours when the terminal has them.
 * Written synchronously, so that log lines and what main.ts prints (the banner) keep their order.
 */
export function prettyDestination(destination: string | number = 1): DestinationStream {
  // Loaded only for a terminal: a service logging JSON (pipes, files, the container) never needs it.
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({
    destination,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'context',
    messageFormat: '{if context}[{context}] {end}{msg}',
    singleLine: true,
  });
}

/**
 * pino's `isoTime` (`,"time":"2026-…Z"`), formatted once per millisecond: at thousands of lines a
 * second most lines share their millisecond with the one before, and a Date and its ISO string
 * per line were a measurable share of writing it.
 */
export function isoTimeOncePerMs(now: () => number = Date.now): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const ms = now();
    if (ms !== at) {
      at = ms;
      text = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return text;
  };
}

/** The shape of every line: no pid/hostname, `msg`, ISO time (request-log.ts writes with these too). */
export const LINE_OPTIONS = {
  base: undefined,
  messageKey: 'msg',
  timestamp: isoTimeOncePerMs(),
} as const satisfies pino.LoggerOptions;

/**
 * The service's logger: JSON lines (the default, for pipes, files and log shippers) or, with
 * `format: 'pretty'`, readable lines on stdout. Redaction and serializers are the same in both.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  options: { format?: LogFormat; secrets?: LogSecrets } = {},
): Logger {
  const secrets = options.secrets ?? new LogSecrets();
  const logger = pino(
    {
      level,
      ...LINE_OPTIONS,
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
        req: (req: { method: string; url: string; ip?: string; routeOptions?: { url?: string } }) => ({
          method: req.method,
          url: redactUrl(req.url, req.routeOptions?.url, secrets),
          remoteAddress: req.ip,
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
    redactingSecrets(
      destination ?? (options.format === 'pretty' ? prettyDestination() : pino.destination(1)), // pino's own default
      secrets,
    ),
  );
  rememberLogSecrets(logger, secrets);
  return logger;
}

/**
 * Every line, whatever logger or child wrote it (request-log.ts writes to this same stream), with
 * the known secret values taken out before it leaves: the last net, by value (log-secrets.ts).
 * Nothing to look for (no secret configured yet): one length check per line.
 */
function redactingSecrets(stream: DestinationStream, secrets: LogSecrets): DestinationStream {
  return { write: (line: string) => stream.write(secrets.size === 0 ? line : secrets.redact(line)) };
}

/** The service's log on stdout, and a way to print text for people in order with it. */
export interface ServiceLog {
  logger: Logger;
  /** Writes text (the demo banner) to stdout after the log lines written so far. */
  print(text: string): void;
  /** Resolves once what is buffered or in flight is written (at most a second), before the process ends by a signal. */
  flush(): Promise<void>;
}

/** `flushWithinMs`: how long a shutdown waits for the log at most (a stuck pipe must not hold it). */
export function createServiceLog(level: string, format: LogFormat, flushWithinMs = 1000): ServiceLog {
  if (format === 'pretty') {
    // Synchronous, as stdout is on a terminal: plain writes to stdout come after it in order.
    return {
      logger: createLogger(level, prettyDestination()),
      print: (text) => void process.stdout.write(text),
      flush: () => Promise.resolve(), // written synchronously
    };
  }
  // pino's own default for stdout (asynchronous writes), kept here to print through it in order.
  const { destination, flush } = drainAware(pino.destination({ dest: 1, sync: false }), flushWithinMs);
  return { logger: createLogger(level, destination), print: (text) => destination.write(text), flush };
}

/**
 * Sonic-boom's `flush(cb)` calls back at once when it has no minimum write length (our case), even
 * with a write in flight, so it cannot tell when the last lines are out. It emits 'drain' each time
 * it goes idle: a write since the last 'drain' means lines are still in flight.
 */
function drainAware(
  stdout: ReturnType<typeof pino.destination>,
  flushWithinMs: number,
): {
  destination: { write(text: string): void };
  flush(): Promise<void>;
} {
  let inFlight = false;
  const waiting = new Set<() => void>();
  stdout.on('drain', () => {
    inFlight = false;
    for (const resolve of waiting) resolve();
    waiting.clear();
  });
  const write = (text: string): void => {
    inFlight = true;
    stdout.write(text);
  };
  const flush = () =>
    new Promise<void>((resolve) => {
      if (!inFlight) return resolve();
      setTimeout(resolve, flushWithinMs).unref();
      waiting.add(resolve);
    });
  return { destination: { write }, flush };
}

/**
 * Nest's own start-up lines (the modules it loaded, each controller and route it mapped, "Nest
 * application successfully started"): useful when debugging, sixty lines of noise otherwise.
 */
const NEST_START_UP = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);
/**
 * Errors Nest logs and then throws to whoever started the application (a module that failed to
 * load, a port in use): main.ts reports those in one sentence, the CLI in its own words.
 */
const NEST_RETHROWN = new Set(['ExceptionHandler', 'NestApplication']);

/**
 * Nest's logger interface on top of pino, so framework and app logs share one stream. A Nest
 * `Logger` with a context calls this with the context last: `(message, ...extra, context)`; for
 * `error`, the first extra is a stack trace, or our own text when the message is an object.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params, NEST_START_UP);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params, NEST_RETHROWN);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  private write(level: pino.Level, message: unknown, params: unknown[], toDebug?: Set<string>): void {
    const last = params.at(-1);
    const context = typeof last === 'string' ? last : undefined;
    const extra = params.slice(0, context === undefined ? params.length : -1).find((p) => typeof p === 'string');
    const at = context !== undefined && toDebug?.has(context) ? 'debug' : level;
    if (!this.logger.isLevelEnabled(at)) return;
    if (message instanceof Error) this.logger[at]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.logger[at]({ context, ...message }, extra);
    else if (extra !== undefined) this.logger[at]({ context, stack: extra }, String(message));
    else this.logger[at]({ context }, String(message));
  }
}
