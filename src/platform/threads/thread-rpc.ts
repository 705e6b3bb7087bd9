import type { MessagePort, Worker } from 'node:worker_threads';

type Endpoint = Pick<Worker | MessagePort, 'postMessage' | 'on' | 'off'>;

/** What one side of a thread pair answers: an operation name to its handler. */
export type RpcHandlers = Record<string, (payload: never) => unknown>;

type Message =
  | { call: number; op: string; payload: unknown }
  | { notify: string; payload: unknown }
  | { reply: number; value?: unknown; error?: string };

/**
 * Calls between two threads over one port, both ways: `call` answers what the other side's handler
 * returned (or rejects with its error's message); `notify` expects no answer. Payloads are copied
 * (structured clone), so only plain data crosses.
 */
export class ThreadRpc {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly onMessage = (message: Message) => this.received(message);
  private closed: Error | null = null;

  constructor(
    private readonly port: Endpoint,
    private readonly handlers: RpcHandlers,
  ) {
    port.on('message', this.onMessage);
  }

  call<T>(op: string, payload?: unknown): Promise<T> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.port.postMessage({ call: id, op, payload });
    });
  }

  notify(op: string, payload?: unknown): void {
    if (!this.closed) this.port.postMessage({ notify: op, payload });
  }

  /** The other side is gone: every call waiting, and every later one, fails with `error`. */
  close(error: Error): void {
    if (this.closed) return;
    this.closed = error;
    this.port.off('message', this.onMessage);
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }

  private received(message: Message): void {
    if ('reply' in message) {
      const w = this.waiting.get(message.reply);
      if (!w) return;
      this.waiting.delete(message.reply);
      if (message.error !== undefined) w.reject(new Error(message.error));
      else w.resolve(message.value);
      return;
    }
    const op = 'call' in message ? message.op : message.notify;
    const handler = this.handlers[op] as ((payload: unknown) => unknown) | undefined;
    const answer = (async () => {
      if (!handler) throw new Error(`no handler for ${op}`);
      return handler(message.payload);
    })();
    if (!('call' in message)) {
      answer.catch(() => undefined); // a notification's failure is its handler's to log
      return;
    }
    answer.then(
      (value) => !this.closed && this.port.postMessage({ reply: message.call, value }),
      (error: unknown) =>
        !this.closed &&
        this.port.postMessage({ reply: message.call, error: error instanceof Error ? error.message : String(error) }),
    );
  }
}
