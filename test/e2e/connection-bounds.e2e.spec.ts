import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 26, item 2: a body trickled a byte at a time is cut at REQUEST_TIMEOUT_MS (408 with a
 * HubSpot body, logged), and past MAX_CONNECTIONS new connections are closed at once (logged).
 * Raw sockets on 127.0.0.1; every wait is for an event of the socket or the server, never a sleep.
 */
function portOf(t: TestApp): number {
  return Number(new URL(t.url).port);
}

/** Resolves with everything the server sent once it closes the connection. */
function received(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined); // a reset is a close too
  return once(socket, 'close').then(() => Buffer.concat(chunks).toString('latin1'));
}

async function opened(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  return socket;
}

describe('trickled bodies time out (REQUEST_TIMEOUT_MS)', () => {
  let t: TestApp;
  const log: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { REQUEST_TIMEOUT_MS: '300', LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void log.push(line) },
    });
  });
  afterAll(() => t.close());

  it.each(['/oauth/v1/token', '/oauth/authorize/sign-in'])(
    '%s: a byte every 50 ms is cut at the bound with a 408 HubSpot body, and logged',
    async (path) => {
      const socket = await opened(portOf(t));
      const answer = received(socket);
      const started = performance.now();
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n',
      );
      // The slow client: keeps the connection busy, never finishing its body.
      const trickle = setInterval(() => {
        if (socket.writable && !socket.destroyed) socket.write('a', () => undefined); // EPIPE once cut: expected
      }, 50);
      const text = await answer.finally(() => clearInterval(trickle));
      const elapsed = performance.now() - started;

      expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, string>;
      expect(body).toMatchObject({ status: 'error', category: 'TIMEOUT', correlationId: expect.any(String) });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(10_000); // before this change: never (REQUEST_TIMEOUT 0)
      const line = log
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.correlationId === body.correlationId);
      expect(line).toMatchObject({ level: 40, msg: expect.stringContaining('REQUEST_TIMEOUT_MS') });
    },
  );

  it('a request sent in time is answered as before', async () => {
    const r = await fetch(`${t.url}/health/live`);
    expect(r.status).toBe(200);
  });
});

describe('open connections are bounded (MAX_CONNECTIONS)', () => {
  let t: TestApp;
  const log: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { MAX_CONNECTIONS: '3', LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void log.push(line) },
    });
  });
  afterAll(() => t.close());

  it('past the bound a new connection is closed unanswered and the log says so; room comes back', async () => {
    const server = t.app.getHttpServer() as Server;
    const port = portOf(t);
    const accepted = new Promise<void>((resolve) => {
      let n = 0;
      const onConnection = () => {
        if (++n < 3) return;
        server.off('connection', onConnection);
        resolve();
      };
      server.on('connection', onConnection);
    });
    const held = [await opened(port), await opened(port), await opened(port)];
    await accepted;

    const dropped = once(server, 'drop');
    const extra = await opened(port);
    const answer = received(extra);
    extra.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await dropped;
    expect(await answer).toBe('');
    const line = log.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.maxConnections === 3);
    expect(line).toMatchObject({ level: 40, msg: expect.stringContaining('Connection limit reached') });

    // One held connection goes: a new one is served again.
    const gone = once(held[0]!, 'close');
    held[0]!.destroy();
    await gone;
    while ((await new Promise<number>((r) => server.getConnections((_, n) => r(n)))) >= 3) {
      await new Promise((r) => setImmediate(r));
    }
    const again = await opened(port);
    const served = received(again);
    again.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(await served).toMatch(/^HTTP\/1\.1 200 /);
    for (const s of held) s.destroy();
  });
});
