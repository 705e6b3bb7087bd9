/**
 * On SIGINT/SIGTERM Nest closes the application and then raises the signal again, which ends the
 * process at once: whatever the asynchronous log destination still had in flight is lost, the last
 * lines of the shutdown among them ("event store and read models closed"). main.ts registers how
 * to flush its log; the core module awaits it as the last step of closing.
 */
let flushLog: (() => Promise<void>) | null = null;

export function flushLogOnShutdown(flush: () => Promise<void>): void {
  flushLog = flush;
}

export async function flushLogAtShutdown(): Promise<void> {
  await flushLog?.();
}
