import { HUBSPOT_HOSTS } from './hubspot-hosts';

export interface FrontAddresses {
  /** HOST as configured. */
  host: string;
  /** Where the CONNECT front listens; null when off. */
  proxyPort: number | null;
  /** Where the transparent TLS front listens; null when off. */
  tlsPort: number | null;
  /** Absolute path of the CA certificate. */
  caFile: string;
}

/** An address clients on this machine can dial: a wildcard HOST is reached on loopback. */
function dialable(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** A shell word: quoted when it holds anything but the safe characters of a path. */
function word(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * What the front's start log says to copy, one line each: the settings per client kind, for the
 * modes that are on (docs/testing-your-app.md, "Unmodified apps"). The paths and addresses are
 * this start's own, so the lines work as printed.
 */
export function frontInstructions({ host, proxyPort, tlsPort, caFile }: FrontAddresses): string[] {
  const ca = word(caFile);
  const lines: string[] = [];
  if (proxyPort !== null) {
    const proxy = `http://${dialable(host)}:${proxyPort}`;
    lines.push(
      `HubSpot hosts front, proxy mode on ${proxy} (CONNECT to ${HUBSPOT_HOSTS.join(', ')} on 443 only). Copy for your app:`,
      `  Node.js 24+:     NODE_USE_ENV_PROXY=1 HTTPS_PROXY=${proxy} NODE_EXTRA_CA_CERTS=${ca}`,
      `  Python requests: HTTPS_PROXY=${proxy} REQUESTS_CA_BUNDLE=${ca}`,
      `  hubspot-api-client (Python): Configuration(proxy="${proxy}", ssl_ca_cert="${caFile.replace(/"/g, '\\"')}")`,
      `  curl:            curl --proxy ${proxy} --cacert ${ca} https://api.hubapi.com/...`,
    );
  }
  if (tlsPort !== null) {
    const at = `${dialable(host)}:${tlsPort}`;
    lines.push(
      `HubSpot hosts front, transparent mode on ${at} (TLS by SNI for ${HUBSPOT_HOSTS.join(', ')}). ` +
        `Map the hosts your app calls to this machine (/etc/hosts or --add-host api.hubapi.com:<address>), ` +
        `send their port 443 to ${at}${tlsPort === 443 ? '' : ' (e.g. -p 443:' + tlsPort + ')'}, and trust the CA:`,
      `  Node.js (any version): NODE_EXTRA_CA_CERTS=${ca}`,
      `  Python requests:       REQUESTS_CA_BUNDLE=${ca}`,
      `  hubspot-api-client (Python): Configuration(ssl_ca_cert="${caFile.replace(/"/g, '\\"')}")`,
      `  curl:                  curl --resolve api.hubapi.com:${tlsPort}:${dialable(host)} --cacert ${ca} https://api.hubapi.com:${tlsPort}/...`,
    );
  }
  return lines;
}
