import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that becomes a real pino child only when something is logged at an enabled
 * level. Fastify makes a child logger for every request; pino serializes (and redacts) the
 * bindings when the child is made, a measurable share of a short request, while most requests
 * log nothing at the service's default level. What is logged is the same as with an eager child.
 */
export class LazyChildLogger {
  private real: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.child_().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }

  bindings(): Bindings {
    return this.child_().bindings();
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.child_().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: LogMethod, args: unknown[]): void {
    if (this.real === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.child_()[level] as (...a: unknown[]) => void)(...args);
  }

  private child_(): Logger {
    this.real ??= this.parent.child(this.childBindings, this.options);
    return this.real;
  }
}

/** Fastify's `childLoggerFactory`: every request gets a LazyChildLogger. */
export function lazyChildLoggerFactory(logger: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  return new LazyChildLogger(logger, bindings, options) as unknown as Logger;
}
