import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  items: Record<string, unknown>[];
}

/** How the receiver answers one request: a status (and headers), or held until `release()` is called. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hold' | 'hang';

/**
 * A webhook receiver on 127.0.0.1 for the tests: records every request, answers as `answer` says
 * (200 by default), and lets a test wait for the request it expects (event-driven, bounded).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (request: ReceivedRequest) => Answer = () => ({ status: 200 });
  private server!: Server;
  private readonly waiters: { match: () => boolean; resolve: () => void }[] = [];
  private readonly held: ServerResponse[] = [];
  private readonly hung = new Set<ServerResponse>();
  inFlight = 0;
  maxInFlight = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let items: Record<string, unknown>[] = [];
        try {
          items = JSON.parse(body) as Record<string, unknown>[];
        } catch {
          items = [];
        }
        const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, items };
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        res.on('close', () => this.inFlight--);
        this.requests.push(request);
        const answer = this.answer(request);
        if (answer === 'hold') this.held.push(res);
        else if (answer === 'hang') this.hung.add(res);
        else {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end('ok');
        }
        this.notify();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hubspot/webhooks`;
    return this;
  }

  /** Answers the oldest held request with `status`. */
  release(status = 200): boolean {
    const res = this.held.shift();
    if (!res) return false;
    res.writeHead(status).end('ok');
    return true;
  }

  get heldCount(): number {
    return this.held.length;
  }

  items(): Record<string, unknown>[] {
    return this.requests.flatMap((r) => r.items);
  }

  /** Resolves once `match` holds (checked on every request); fails after `timeoutMs`. */
  waitFor(match: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    if (match()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver: timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  waitForItems(match: (item: Record<string, unknown>) => boolean, count: number, what: string, timeoutMs?: number) {
    return this.waitFor(() => this.items().filter(match).length >= count, what, timeoutMs);
  }

  private notify(): void {
    for (const w of [...this.waiters]) {
      if (w.match()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  async stop(): Promise<void> {
    for (const res of [...this.held, ...this.hung]) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
