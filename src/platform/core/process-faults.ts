/**
 * Faults no code path caught: an unhandled promise rejection or an uncaught exception. Node 24
 * ends the process on either by default, silently for a rejection from a library's internals
 * (6.2.1's batch append after a reconnect did that). Instead the fault is logged once and the
 * process reports itself not ready, so an orchestrator takes it out of rotation and a person
 * reads why; what was in flight elsewhere carries on.
 */
export class ProcessFaults {
  private first: string | null = null;
  private count = 0;

  record(kind: 'unhandledRejection' | 'uncaughtException', error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const reason = `${kind}: ${message}`;
    this.count += 1;
    this.first ??= reason;
    return reason;
  }

  /** Why the process is not ready (the first fault and how many followed), or null. */
  reason(): string | null {
    if (this.first === null) return null;
    return this.count > 1 ? `${this.first} (and ${this.count - 1} more)` : this.first;
  }
}

/** The process's one record of faults: readiness reads it. */
export const processFaults = new ProcessFaults();

export interface ProcessLike {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
}

/** Installs the handlers; `log` writes the line (the error's stack when it has one). */
export function installProcessFaultHandlers(
  target: ProcessLike,
  log: (line: string) => void,
  faults: ProcessFaults = processFaults,
): void {
  const handle = (kind: 'unhandledRejection' | 'uncaughtException') => (error: unknown) => {
    const reason = faults.record(kind, error);
    const stack = error instanceof Error && error.stack ? `\n${error.stack}` : '';
    log(`${reason}; the service now reports itself not ready${stack}`);
  };
  target.on('unhandledRejection', handle('unhandledRejection'));
  target.on('uncaughtException', handle('uncaughtException'));
}
