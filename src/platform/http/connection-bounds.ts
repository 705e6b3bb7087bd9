import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

/**
 * The HTTP server's own bounds on slow or idle clients. Fastify's defaults switch Node's request
 * timeout off, so a body trickled one byte every few seconds held its connection (and a file
 * descriptor) for as long as the client liked. `requestTimeout` is the time to receive a whole
 * request, headers and body; past it Node answers 408 (hubSpotClientErrorHandler, logged) and
 * closes. Node looks for expired requests every `connectionsCheckingInterval` (30 s by default),
 * so that interval is made a fraction of the timeout for the bound to hold close to its value.
 * `keepAliveTimeout` is how long an idle keep-alive connection waits for its next request: a few
 * seconds (Fastify's 72 s let idle sockets hold every connection of MAX_CONNECTIONS for that long).
 */
export function serverTimeouts(
  requestTimeoutMs: number,
  keepAliveTimeoutMs = 5000,
): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      // Node requires headersTimeout <= requestTimeout; 60 s is its own default.
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(requestTimeoutMs / 4))),
      keepAliveTimeout: keepAliveTimeoutMs,
    },
  };
}

/** How often a run of dropped connections is summarised in the log at most. */
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * The key a client's connections are counted under: its IPv4 address, or the /64 of its IPv6
 * address (one host usually has a whole /64, and could take a fresh address per connection).
 */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const bare = address.replace(/%.*$/, '').toLowerCase(); // no zone id
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.split('::');
  const first = head === '' ? [] : head.split(':');
  const last = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

export interface ConnectionBounds {
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

/** A log line at once the first time, then at most once per DROP_LOG_INTERVAL_MS with the count meanwhile. */
function throttledWarning(
  logger: Pick<Logger, 'warn'>,
  now: () => number,
  write: (logger: Pick<Logger, 'warn'>, dropped: number, remoteAddress: string | undefined) => void,
): (remoteAddress: string | undefined) => void {
  let dropped = 0;
  let lastLoggedAt = -Infinity;
  return (remoteAddress) => {
    dropped++;
    const at = now();
    if (at - lastLoggedAt < DROP_LOG_INTERVAL_MS) return;
    write(logger, dropped, remoteAddress);
    lastLoggedAt = at;
    dropped = 0;
  };
}

/**
 * Counts the open connections of the service's port and of the HubSpot hosts front together (a
 * tunnel holds a file descriptor like any connection), in total and per client address, and
 * closes a new one past either bound before anything is read from it.
 */
export class ConnectionGate {
  private open = 0;
  private readonly byAddress = new Map<string, number>();
  /** Sockets whose connection is counted already (a tunnel's TLS socket: its TCP socket is). */
  private readonly counted = new WeakSet<object>();
  private readonly overTotal: (remoteAddress: string | undefined) => void;
  private readonly overShare: (remoteAddress: string | undefined) => void;

  constructor(
    readonly bounds: ConnectionBounds,
    logger: Pick<Logger, 'warn'>,
    now: () => number = () => performance.now(),
  ) {
    const { maxConnections, maxConnectionsPerAddress } = bounds;
    this.overTotal = throttledWarning(logger, now, (log, dropped, remoteAddress) =>
      log.warn(
        { maxConnections, dropped, remoteAddress },
        `Connection limit reached (MAX_CONNECTIONS=${maxConnections}): ${dropped} new connection(s) closed unanswered`,
      ),
    );
    this.overShare = throttledWarning(logger, now, (log, dropped, remoteAddress) =>
      log.warn(
        { maxConnectionsPerAddress, dropped, remoteAddress },
        `Connection limit of one client address reached (MAX_CONNECTIONS_PER_ADDRESS=${maxConnectionsPerAddress}): ${dropped} new connection(s) closed unanswered`,
      ),
    );
  }

  /** Connections open now (the service's and the front's). */
  get openConnections(): number {
    return this.open;
  }

  /** Counts a new connection until it closes; past a bound, destroys it and returns false. */
  admit(socket: Socket): boolean {
    if (this.counted.has(socket)) return true;
    const key = clientAddressKey(socket.remoteAddress);
    const mine = this.byAddress.get(key) ?? 0;
    if (this.open >= this.bounds.maxConnections || mine >= this.bounds.maxConnectionsPerAddress) {
      (this.open >= this.bounds.maxConnections ? this.overTotal : this.overShare)(socket.remoteAddress);
      socket.destroy();
      return false;
    }
    this.counted.add(socket);
    this.open++;
    this.byAddress.set(key, mine + 1);
    socket.once('close', () => {
      this.open--;
      const left = (this.byAddress.get(key) ?? 1) - 1;
      if (left === 0) this.byAddress.delete(key);
      else this.byAddress.set(key, left);
    });
    return true;
  }

  /** A socket carried by a connection already counted (a tunnel's TLS socket): never counted again. */
  countedAlready(socket: object): void {
    this.counted.add(socket);
  }
}

const gates = new WeakMap<Server, ConnectionGate>();

/** The gate of the service's server, for the HubSpot hosts front to count its tunnels in. */
export function connectionGateOf(server: Server): ConnectionGate | undefined {
  return gates.get(server);
}

/**
 * At most `maxConnections` open connections: Node closes any connection past it as soon as it is
 * accepted, before anything is read ('drop'); the gate then counts them with the front's tunnels,
 * in total and per client address, and closes what is past either bound. Each refusal is logged
 * at once the first time, then at most once per DROP_LOG_INTERVAL_MS with the number dropped
 * meanwhile (a flood of connections must not become a flood of log lines).
 */
export function boundConnections(
  server: Server,
  bounds: ConnectionBounds,
  logger: Pick<Logger, 'warn'>,
  now: () => number = () => performance.now(),
): ConnectionGate {
  server.maxConnections = bounds.maxConnections;
  const gate = new ConnectionGate(bounds, logger, now);
  const dropped = throttledWarning(logger, now, (log, n, remoteAddress) =>
    log.warn(
      { maxConnections: bounds.maxConnections, dropped: n, remoteAddress },
      `Connection limit reached (MAX_CONNECTIONS=${bounds.maxConnections}): ${n} new connection(s) closed unanswered`,
    ),
  );
  server.on('drop', (data?: { remoteAddress?: string }) => dropped(data?.remoteAddress));
  // Before the HTTP server's own listener: a refused socket is closed before its parser reads a byte.
  server.prependListener('connection', (socket: Socket) => void gate.admit(socket));
  gates.set(server, gate);
  return gate;
}
