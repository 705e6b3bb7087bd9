import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { createSecureContext, type Server as TlsServer, TLSSocket } from 'node:tls';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { connectionGateOf, serverTimeouts } from '../../platform/http/connection-bounds';
import { frontInstructions } from './front-instructions';
import type { HubSpotHostsCa } from './hubspot-hosts-ca';
import { CA_CERT_FILE, CA_KEY_FILE, HUBSPOT_HOSTS } from './hubspot-hosts';
import { transparentFront } from './transparent-front';

/** HubSpot's Error object for the proxy's own refusals (it is not a route of the service). */
function errorBody(category: string, message: string): string {
  return JSON.stringify({ status: 'error', message, correlationId: randomUUID(), category });
}

function refuseTunnel(socket: Duplex, status: string, message: string): void {
  const body = errorBody('FORBIDDEN', message);
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json;charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** `host:port` of a CONNECT request, lower-cased; null when it is not one. */
export function connectTarget(authority: string | undefined): { host: string; port: number } | null {
  const match = /^([a-z0-9.-]{1,253}):(\d{1,5})$/i.exec(authority ?? '');
  return match ? { host: match[1]!.toLowerCase(), port: Number(match[2]) } : null;
}

/**
 * The HTTPS front for apps that hard-code HubSpot's hosts, off unless set. Transparent mode
 * (HUBSPOT_HOSTS_TLS_PORT): a TLS listener for clients that ignore proxies (transparent-front.ts).
 * Proxy mode (HUBSPOT_HOSTS_PROXY_PORT): an HTTP CONNECT proxy that tunnels only to HubSpot's hosts on 443, terminates TLS there with
 * a certificate from the local CA (HubSpotHostsCa), and hands the decrypted connection to the
 * service's own HTTP server, so `https://api.hubapi.com/...` is answered by this service. Any other
 * host, port or plain proxy request is refused: it is never a general proxy.
 */
@Injectable()
export class HubSpotHostsFront implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('HubSpotHostsFront');
  private server: Server | null = null;
  private tlsServer: TlsServer | null = null;
  private ca: HubSpotHostsCa | null = null;
  private readonly tunnels = new Set<Duplex>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** The CA certificate (PEM) when the front is on; null when off. */
  get caCertificatePem(): string | null {
    return this.ca?.certificatePem ?? null;
  }

  /** Where the front listens, once it does. */
  get port(): number | null {
    return (this.server?.address() as AddressInfo | null)?.port ?? null;
  }

  /** Where the transparent TLS front listens, once it does. */
  get tlsPort(): number | null {
    return (this.tlsServer?.address() as AddressInfo | null)?.port ?? null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { hubspotHostsProxyPort: proxyPort, hubspotHostsTlsPort: tlsPort } = this.config;
    if (proxyPort === null && tlsPort === null) return;
    // Loaded only now: the CA's X.509 code is several MiB of heap a service with the front off never needs.
    const { HubSpotHostsCa: Ca } = require('./hubspot-hosts-ca') as typeof import('./hubspot-hosts-ca');
    this.ca = await Ca.loadOrCreate(this.config.dataDir);
    const service = this.adapterHost.httpAdapter.getHttpServer() as Server;
    if (proxyPort !== null) this.server = await this.listen('HUBSPOT_HOSTS_PROXY_PORT', proxyPort, this.proxy(service));
    if (tlsPort !== null) {
      const transparent = transparentFront({
        ca: this.ca,
        service,
        handshakeTimeoutMs: this.config.requestTimeoutMs,
        warn: (message) => this.logger.warn(message),
      });
      // Dropped at shutdown like tunnels: the service's server does not know their TCP sockets.
      transparent.on('connection', (socket: Socket) => this.track(socket));
      this.tlsServer = await this.listen('HUBSPOT_HOSTS_TLS_PORT', tlsPort, transparent);
    }
    if (!this.ca.constraintsCurrent) {
      this.logger.warn(
        `${join(this.config.dataDir, CA_CERT_FILE)} was made by an older version: its name constraints do not exclude ` +
          "IP addresses and CN-only names, so a leak of its key would let it be used for more than HubSpot's hosts. " +
          `Stop the service, remove ${CA_CERT_FILE} and ${CA_KEY_FILE} from DATA_DIR to have a new CA made at the next start, ` +
          'and trust the new certificate instead of the old one.',
      );
    }
    const caFile = resolve(this.config.dataDir, CA_CERT_FILE);
    for (const line of frontInstructions({
      host: this.config.host,
      proxyPort: this.port,
      tlsPort: this.tlsPort,
      caFile,
    })) {
      this.logger.log(line);
    }
    // Node below 24 has no NODE_USE_ENV_PROXY: the proxy recipe silently reaches the real HubSpot there.
    if (proxyPort !== null) {
      this.logger.warn(
        'Node.js below 24 ignores HTTPS_PROXY and NODE_USE_ENV_PROXY: an app on it calls the real HubSpot, not this service. ' +
          'Use Node.js 24+ or the transparent mode (HUBSPOT_HOSTS_TLS_PORT).',
      );
    }
  }

  /** The CONNECT proxy (HUBSPOT_HOSTS_PROXY_PORT). */
  private proxy(service: Server): Server {
    // A CONNECT must arrive within REQUEST_TIMEOUT_MS, like any request (Node's defaults wait minutes).
    const server = createServer(
      serverTimeouts(this.config.requestTimeoutMs, this.config.keepAliveTimeoutMs).http,
      (request, response) => this.refusePlainRequest(request, response),
    );
    // Each connection to the front counts against MAX_CONNECTIONS and its address's share, together
    // with the service's own (connection-bounds.ts); its tunnel, handed to the service's server, then
    // has that server's timeouts (a request within REQUEST_TIMEOUT_MS, idle keep-alive KEEP_ALIVE_TIMEOUT_MS).
    const gate = connectionGateOf(service);
    server.prependListener('connection', (socket: Socket) => void gate?.admit(socket));
    server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.tunnel(request, socket, head, service),
    );
    return server;
  }

  private async listen<S extends NetServer>(setting: string, port: number, server: S): Promise<S> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE' || error.code === 'EACCES'
            ? Object.assign(
                new Error(
                  error.code === 'EADDRINUSE'
                    ? `${setting} ${port} on ${this.config.host} is already in use`
                    : `${setting} ${port} on ${this.config.host} may not be bound by this user (ports below 1024 need privileges: map 443 to a higher port)`,
                ),
                { code: error.code },
              )
            : error,
        ),
      );
      server.listen(port, this.config.host, resolve);
    });
    return server;
  }

  /** Stops taking connections and drops open tunnels, so the service's own server can close. */
  async beforeApplicationShutdown(): Promise<void> {
    const [server, tlsServer] = [this.server, this.tlsServer];
    this.server = null;
    this.tlsServer = null;
    const closing: Promise<void>[] = [];
    if (tlsServer) closing.push(new Promise<void>((resolve) => tlsServer.close(() => resolve())));
    if (server) closing.push(new Promise<void>((resolve) => server.close(() => resolve())));
    for (const connection of this.tunnels) connection.destroy();
    server?.closeAllConnections();
    await Promise.all(closing);
  }

  /** A tunnel, or a connection to the transparent front, to drop at shutdown. */
  private track(socket: Duplex): void {
    this.tunnels.add(socket);
    socket.once('close', () => this.tunnels.delete(socket));
  }

  private refusePlainRequest(_request: IncomingMessage, response: ServerResponse): void {
    const body = errorBody(
      'FORBIDDEN',
      `This port only tunnels HTTPS to HubSpot's hosts (CONNECT host:443 for ${HUBSPOT_HOSTS.join(', ')}); it is not a general proxy.`,
    );
    response.writeHead(405, {
      'content-type': 'application/json;charset=utf-8',
      allow: 'CONNECT',
      connection: 'close',
    });
    response.end(body);
  }

  private tunnel(request: IncomingMessage, socket: Duplex, head: Buffer, service: Server): void {
    // Before any answer: a client that resets the connection after reading a refusal must not make
    // an 'error' nobody listens to (that would end the process).
    socket.on('error', () => socket.destroy());
    const target = connectTarget(request.url);
    if (target === null || !HUBSPOT_HOSTS.includes(target.host) || target.port !== 443) {
      this.logger.warn(`refused CONNECT ${String(request.url).slice(0, 300)}: not a HubSpot host on 443`);
      return refuseTunnel(
        socket,
        '403 Forbidden',
        `This proxy only tunnels to HubSpot's hosts on port 443 (${HUBSPOT_HOSTS.join(', ')}).`,
      );
    }
    this.track(socket);
    this.ca!.leaf(target.host).then(
      ({ key, cert }) => {
        if (socket.destroyed) return;
        // The leaf is ready before the client is told to start TLS, so its ClientHello meets the TLS socket.
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) socket.unshift(head);
        const tls = new TLSSocket(socket as Socket, {
          isServer: true,
          secureContext: createSecureContext({ key, cert }),
          ALPNProtocols: ['http/1.1'],
        });
        tls.on('error', () => tls.destroy());
        // Counted already, as the connection to the front it travels in; closing it closes that one.
        connectionGateOf(service)?.countedAlready(tls);
        tls.once('close', () => socket.destroy());
        service.emit('connection', tls);
      },
      (error: unknown) => {
        this.logger.error(`no certificate for ${target.host}: ${String(error)}`);
        socket.destroy();
      },
    );
  }
}
