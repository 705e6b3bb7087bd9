import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import {
  createSecureContext,
  createServer,
  type SecureContext,
  type Server as TlsServer,
  type TLSSocket,
} from 'node:tls';
import { connectionGateOf } from '../../platform/http/connection-bounds';
import type { HubSpotHostsCa } from './hubspot-hosts-ca';
import { HUBSPOT_HOSTS } from './hubspot-hosts';

export interface TransparentFrontOptions {
  ca: HubSpotHostsCa;
  /** The service's own HTTP server: each decrypted connection is handed to it. */
  service: Server;
  /** A TLS handshake must be done within it (REQUEST_TIMEOUT_MS, like a request). */
  handshakeTimeoutMs: number;
  warn: (message: string) => void;
}

/** The name a client asked for, as HUBSPOT_HOSTS spells it; null when it is not one of them. */
export function hubSpotHostOf(servername: string | false | undefined | null): string | null {
  const name = typeof servername === 'string' ? servername.toLowerCase().replace(/\.$/, '') : '';
  return HUBSPOT_HOSTS.includes(name) ? name : null;
}

/** How often one refusal's line is written at most; repeats meanwhile are counted into the next. */
const REPEAT_LOG_INTERVAL_MS = 10_000;

/** Each distinct line at once, then at most once per REPEAT_LOG_INTERVAL_MS (a scanner must not flood the log). */
export function onceAWhile(write: (message: string) => void, now: () => number = () => performance.now()) {
  const seen = new Map<string, { at: number; repeats: number }>();
  return (message: string) => {
    const last = seen.get(message);
    const at = now();
    if (last && at - last.at < REPEAT_LOG_INTERVAL_MS) {
      last.repeats++;
      return;
    }
    if (seen.size >= 1000) seen.clear(); // bounded whatever names clients send
    seen.set(message, { at, repeats: 0 });
    write(
      last && last.repeats > 0 ? `${message} (and ${last.repeats} time(s) more since the last such line)` : message,
    );
  };
}

/** A server name for a log line: printable characters only, bounded. */
function shown(servername: string): string {
  return JSON.stringify(servername.slice(0, 253).replace(/[^\x21-\x7e]/g, '?'));
}

/**
 * The transparent mode of the HubSpot hosts front (HUBSPOT_HOSTS_TLS_PORT): a TLS listener that
 * answers as HubSpot's hosts for clients pointed at it by a hosts-file mapping (they ignore proxy
 * settings, so CONNECT never reaches them). The client's SNI picks the host's certificate from the
 * local CA; any other name, or none, gets a context without a certificate, so the handshake ends
 * with a TLS alert (handshake_failure) and nothing is answered. The decrypted connection then goes
 * to the service's own HTTP server, as a CONNECT tunnel does.
 */
export function transparentFront({ ca, service, handshakeTimeoutMs, warn }: TransparentFrontOptions): TlsServer {
  const refusing = createSecureContext({});
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (host: string) => {
    let context = contexts.get(host);
    if (!context) {
      context = ca.leaf(host).then(({ key, cert }) => createSecureContext({ key, cert }));
      contexts.set(host, context);
      context.catch(() => contexts.delete(host)); // tried again on the next connection
    }
    return context;
  };
  const server = createServer({
    ALPNProtocols: ['http/1.1'],
    handshakeTimeout: handshakeTimeoutMs,
    SNICallback: (servername, answer) => {
      const host = hubSpotHostOf(servername);
      if (host === null) return answer(null, refusing);
      contextFor(host).then(
        (context) => answer(null, context),
        (error: unknown) => {
          warn(`no certificate for ${host}: ${String(error)}`);
          answer(null, refusing);
        },
      );
    },
  });
  // Counted with the service's own connections (MAX_CONNECTIONS and each address's share), from
  // the TCP connection on; its TLS socket, handed to the service, is the same connection.
  const gate = connectionGateOf(service);
  server.prependListener('connection', (socket: Socket) => void gate?.admit(socket));
  server.on('secureConnection', (tls: TLSSocket) => {
    tls.on('error', () => tls.destroy());
    gate?.countedAlready(tls);
    service.emit('connection', tls);
  });
  const say = onceAWhile(warn);
  server.on('tlsClientError', (error: Error & { code?: string }, tls: TLSSocket) => {
    const name = (tls as TLSSocket & { servername?: string | false }).servername;
    const named = typeof name === 'string' && name !== '';
    // A client that went away before its hello (a port probe) is no refusal worth a line; one that
    // named a HubSpot host and then hung up has most often refused the certificate.
    if (!named && ['ECONNRESET', 'EPIPE', 'ERR_TLS_HANDSHAKE_TIMEOUT'].includes(error.code ?? '')) return;
    if (named && hubSpotHostOf(name) === null) {
      say(`refused TLS for ${shown(name)}: this port answers only as HubSpot's hosts (${HUBSPOT_HOSTS.join(', ')})`);
    } else if (!named) {
      say(
        `refused a TLS connection that named no host (no SNI; ${error.code ?? error.message}): connect by a HubSpot host name`,
      );
    } else {
      // A HubSpot name whose handshake failed: most often a client that does not trust the CA yet.
      say(`TLS handshake for ${name} failed (${error.code ?? error.message}): does the client trust the CA?`);
    }
  });
  return server;
}
