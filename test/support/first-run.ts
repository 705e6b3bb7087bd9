import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { childEnv } from './child-env';

export const ROOT = join(__dirname, '..', '..');

export interface Run {
  child: ChildProcess;
  /** stdout and stderr as they arrived, interleaved (what a terminal would show). */
  screen: () => string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `text` is in stdout+stderr; rejects if the process ends first or after `ms`. */
  waitFor: (text: string | RegExp, ms?: number) => Promise<void>;
  /** Resolves with how the process ended; kills it with SIGKILL after `ms`. */
  ended: (ms?: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The environment of a person's shell: what the test runner sets for itself (LOG_LEVEL=silent,
 * jest's variables) is left out, so the service starts with its own defaults.
 */
export function personEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(childEnv())) {
    if (/^(LOG_LEVEL|LOG_FORMAT|JEST_|NODE_OPTIONS|FORCE_COLOR|NO_COLOR)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

const running = new Set<Run>();

/** Kills whatever a test started and left running (a failed assertion must not leave jest waiting on it). */
export async function killLeftovers(): Promise<void> {
  await Promise.all(
    [...running].map((r) => {
      r.child.kill('SIGKILL');
      return r.ended();
    }),
  );
}

/** Runs a command from the repository root with its output captured; bounded by the callers' `ms`. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Run {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
    screen += c.toString();
    changed();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    screen += c.toString();
    changed();
  });
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      exit = { code, signal };
      changed();
      resolve(exit);
    }),
  );

  const waitFor = (text: string | RegExp, ms = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const found = () => (typeof text === 'string' ? screen.includes(text) : text.test(screen));
      const check = () => {
        if (found()) done(resolve);
        else if (exit) done(() => reject(new Error(`ended (${JSON.stringify(exit)}) before ${text}:\n${screen}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no ${text} within ${ms} ms:\n${screen}`))), ms);
      const done = (f: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        f();
      };
      listeners.add(check);
      check();
    });

  const ended = async (ms = 30_000) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  const r: Run = { child, screen: () => screen, stdout: () => stdout, stderr: () => stderr, waitFor, ended };
  running.add(r);
  void exited.then(() => running.delete(r));
  return r;
}

// eslint-disable-next-line no-control-regex
export const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

/** Terminal rows the text takes on a screen `columns` wide. */
export function rows(text: string, columns = 80): number {
  return stripAnsi(text)
    .replace(/\r/g, '')
    .split('\n')
    .reduce((n, line) => n + Math.max(1, Math.ceil([...line].length / columns)), 0);
}
