import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, startReliabilityService, stopService, type RunningService } from '../support/reliability-service';
import { TEST_ADMIN_KEY } from '../support/test-app';

/**
 * Issue 41, item 5, the review's attack on the real process: an instance capped at 48 connections,
 * one client holding 48 idle keep-alive sockets (after one request each) and another 48 that never
 * send a byte. Each address gets its share (a quarter: 12), new clients are answered at once, and
 * the idle sockets are closed after KEEP_ALIVE_TIMEOUT_MS and REQUEST_TIMEOUT_MS (the review saw the
 * whole instance unreachable for 75 s). Connections come from other loopback addresses (127.0.0.2,
 * 127.0.0.3) to 127.0.0.1, the service's address; every wait is for a socket event, bounded.
 */
jest.setTimeout(120_000);

const CAP = 48;
const SHARE = CAP / 4;

async function opened(port: number, from: string): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

/** One request; the status, or 0 when the server closed without an answer. */
function statusOf(socket: Socket, keepAlive: boolean): Promise<number> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(0);
    let text = '';
    const onData = (c: Buffer) => {
      text += c.toString('latin1');
      if (text.includes('\r\n\r\n')) finish(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0));
    };
    const finish = (status: number) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(status);
    };
    const onClose = () => finish(0);
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(
      `GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`,
    );
  });
}

/** Resolves once every socket is closed, or with those still open after `ms`. */
function allClosedWithin(sockets: Socket[], ms: number): Promise<number> {
  return new Promise((resolve) => {
    let open = sockets.filter((s) => !s.closed);
    if (open.length === 0) return resolve(0);
    const timer = setTimeout(() => resolve(open.length), ms);
    for (const s of open) {
      s.resume();
      s.once('close', () => {
        open = open.filter((o) => o !== s);
        if (open.length === 0) {
          clearTimeout(timer);
          resolve(0);
        }
      });
    }
  });
}

describe('reliability: idle sockets at the connection cap (issue 41, item 5)', () => {
  let dataDir: string;
  let service: RunningService;

  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-conn-'));
    service = await startReliabilityService({
      DATA_DIR: dataDir,
      SEED: 'none',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      MAX_CONNECTIONS: String(CAP),
      REQUEST_TIMEOUT_MS: '3000',
    });
  }, 180_000);
  afterAll(async () => {
    await stopService(service);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('one address holds its share at most; new clients are answered; idle sockets are closed within seconds', async () => {
    const started = performance.now();
    const idle = await Promise.all(Array.from({ length: CAP }, () => opened(service.port, '127.0.0.2')));
    const statuses = await Promise.all(idle.map((s) => statusOf(s, true)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(SHARE);
    expect(statuses.filter((s) => s === 0)).toHaveLength(CAP - SHARE);
    const silent = await Promise.all(Array.from({ length: CAP }, () => opened(service.port, '127.0.0.3')));

    // Other clients, while both hold what they can: every request answered, at once.
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const socket = await opened(service.port, '127.0.0.1');
      expect(await statusOf(socket, false)).toBe(200);
      expect(performance.now() - t0).toBeLessThan(2000);
      socket.destroy();
    }

    // The idle keep-alive sockets go after KEEP_ALIVE_TIMEOUT_MS (5 s), the silent ones at REQUEST_TIMEOUT_MS (3 s).
    expect(await allClosedWithin(idle, 10_000)).toBe(0);
    expect(await allClosedWithin(silent, 10_000)).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(service.output()).toContain('MAX_CONNECTIONS_PER_ADDRESS=12');

    // And the address that held them is served again.
    const again = await opened(service.port, '127.0.0.2');
    expect(await statusOf(again, false)).toBe(200);
    again.destroy();
  });
});
