import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { boundConnections, serverTimeouts } from '../../src/platform/http/connection-bounds';

describe('connection bounds (issue 26, item 2)', () => {
  it('Node checks for expired requests often enough for the timeout to hold; headers within it', () => {
    expect(serverTimeouts(30_000)).toEqual({
      requestTimeout: 30_000,
      http: { requestTimeout: 30_000, headersTimeout: 30_000, connectionsCheckingInterval: 1000 },
    });
    expect(serverTimeouts(300).http).toEqual({
      requestTimeout: 300,
      headersTimeout: 300,
      connectionsCheckingInterval: 75,
    });
    expect(serverTimeouts(600_000).http.headersTimeout).toBe(60_000);
  });

  it('sets maxConnections and logs dropped connections at once, then at most once per 10 s with the count', () => {
    const server = Object.assign(new EventEmitter(), { maxConnections: 0 }) as unknown as Server;
    const warnings: Array<Record<string, unknown>> = [];
    let now = 0;
    boundConnections(server, 7, { warn: ((o: Record<string, unknown>) => void warnings.push(o)) as never }, () => now);
    expect(server.maxConnections).toBe(7);
    server.emit('drop', { remoteAddress: '127.0.0.1' });
    expect(warnings).toEqual([{ maxConnections: 7, dropped: 1, remoteAddress: '127.0.0.1' }]);
    for (let i = 0; i < 1000; i++) server.emit('drop', {});
    now = 9_999;
    server.emit('drop', {});
    expect(warnings).toHaveLength(1);
    now = 10_000;
    server.emit('drop', {});
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({ dropped: 1002 });
  });
});
