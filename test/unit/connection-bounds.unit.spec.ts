import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import {
  boundConnections,
  clientAddressKey,
  ConnectionGate,
  serverTimeouts,
} from '../../src/platform/http/connection-bounds';

describe('connection bounds (issue 26, item 2)', () => {
  it('Node checks for expired requests often enough for the timeout to hold; headers within it', () => {
    expect(serverTimeouts(30_000)).toEqual({
      requestTimeout: 30_000,
      keepAliveTimeout: 5000,
      http: {
        requestTimeout: 30_000,
        headersTimeout: 30_000,
        connectionsCheckingInterval: 1000,
        keepAliveTimeout: 5000,
      },
    });
    expect(serverTimeouts(300, 400).http).toEqual({
      requestTimeout: 300,
      headersTimeout: 300,
      connectionsCheckingInterval: 75,
      keepAliveTimeout: 400,
    });
    expect(serverTimeouts(600_000).http.headersTimeout).toBe(60_000);
  });

  it('sets maxConnections and logs dropped connections at once, then at most once per 10 s with the count', () => {
    const server = Object.assign(new EventEmitter(), { maxConnections: 0 }) as unknown as Server;
    const warnings: Array<Record<string, unknown>> = [];
    let now = 0;
    boundConnections(
      server,
      { maxConnections: 7, maxConnectionsPerAddress: 7 },
      { warn: ((o: Record<string, unknown>) => void warnings.push(o)) as never },
      () => now,
    );
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

  it('counts one IPv4 address, or one IPv6 /64, as one client (issue 41, item 5)', () => {
    expect(clientAddressKey('10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddressKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(clientAddressKey('2001:DB8:0:1:ffff:2:3:4')).toBe('2001:db8:0:1::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddressKey(undefined)).toBe('unknown');
  });

  it('admits up to the share of an address and the total, and gives room back on close', () => {
    const warnings: Array<Record<string, unknown>> = [];
    const gate = new ConnectionGate(
      { maxConnections: 3, maxConnectionsPerAddress: 2 },
      { warn: ((o: Record<string, unknown>) => void warnings.push(o)) as never },
      () => 0,
    );
    const socket = (remoteAddress: string) =>
      Object.assign(new EventEmitter(), {
        remoteAddress,
        destroyed: false,
        destroy() {
          this.destroyed = true;
        },
      }) as unknown as Socket & EventEmitter;
    const a = [socket('10.0.0.1'), socket('10.0.0.1'), socket('10.0.0.1')];
    expect(a.map((s) => gate.admit(s))).toEqual([true, true, false]);
    expect(a[2]!.destroyed).toBe(true);
    expect(warnings).toEqual([{ maxConnectionsPerAddress: 2, dropped: 1, remoteAddress: '10.0.0.1' }]);
    const b = [socket('10.0.0.2'), socket('10.0.0.3')];
    expect(b.map((s) => gate.admit(s))).toEqual([true, false]); // the total
    expect(gate.openConnections).toBe(3);
    a[0]!.emit('close');
    expect(gate.openConnections).toBe(2);
    expect(gate.admit(socket('10.0.0.1'))).toBe(true);
    // A socket carried by one already counted (a tunnel's TLS socket) is not counted again.
    const carried = socket('10.0.0.9');
    gate.countedAlready(carried);
    expect(gate.admit(carried)).toBe(true);
    expect(gate.openConnections).toBe(3);
  });
});
