import 'reflect-metadata'; // @peculiar/x509's dependency injection (tsyringe) needs it loaded first
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  GeneralName,
  GeneralSubtree,
  GeneralSubtrees,
  id_ce_nameConstraints,
  Name as AsnName,
  NameConstraints,
} from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CA_CERT_FILE, CA_KEY_FILE, HUBSPOT_HOSTS } from './hubspot-hosts';

/** The CA may sign for these domains only (X.509 name constraints): trusting it trusts nothing else. */
const PERMITTED_DOMAINS = ['hubapi.com', 'hubspot.com'];
/** Every address, IPv4 and IPv6: the CA signs for no IP address (constraints are per name type). */
const EXCLUDED_IP_RANGES = ['0.0.0.0/0', '::/0'];
/**
 * The subjects every leaf has (`O=…, OU=…, CN=<one of HUBSPOT_HOSTS>`), and the only subjects the CA
 * may sign: a certificate whose subject names another host in its CN, such as `CN=localhost` with
 * no subjectAltName (OpenSSL checks a dotless CN against no DNS constraint, and Node and Python
 * then match the host name against that CN), lies outside the permitted directory names.
 */
const LEAF_SUBJECT_BASE = 'O=hubspot-public-app-service, OU=HubSpot hosts front';

export { CA_CERT_FILE, CA_KEY_FILE, HUBSPOT_HOSTS } from './hubspot-hosts';

const crypto = webcrypto;
x509.cryptoProvider.set(webcrypto as never); // Node's WebCrypto (the library's types are the DOM's)
const EC: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 86_400_000;

export interface LeafCertificate {
  /** PKCS#8 PEM. */
  key: string;
  /** The leaf, then the CA. */
  cert: string;
}

/**
 * The local certificate authority of the HubSpot hosts front: made once into DATA_DIR (key file
 * 0600, certificate 0644), loaded on every later start. It issues short-lived leaf certificates for
 * HubSpot's hosts only, in memory. Validity is wall-clock time, not the service's clock: TLS
 * clients check certificates against their own clocks.
 */
export class HubSpotHostsCa {
  private readonly leaves = new Map<string, Promise<LeafCertificate>>();

  /**
   * False for a CA an older version made, whose name constraints let it sign for IP addresses and
   * CN-only names: kept (apps and browsers may trust it), and the front says in the log how to replace it.
   */
  readonly constraintsCurrent: boolean;

  private constructor(
    readonly certificatePem: string,
    private readonly certificate: x509.X509Certificate,
    private readonly key: webcrypto.CryptoKey,
  ) {
    const current = Buffer.from(AsnConvert.serialize(hubSpotNamesOnly()));
    const made = certificate.getExtension(id_ce_nameConstraints)?.value;
    this.constraintsCurrent = made !== undefined && current.equals(Buffer.from(made));
  }

  static async loadOrCreate(dataDir: string): Promise<HubSpotHostsCa> {
    const certPath = join(dataDir, CA_CERT_FILE);
    const keyPath = join(dataDir, CA_KEY_FILE);
    const [haveCert, haveKey] = [existsSync(certPath), existsSync(keyPath)];
    if (haveCert !== haveKey) {
      // Never replace half a CA silently: apps and browsers may already trust the certificate.
      throw new Error(
        `${join(dataDir, haveCert ? CA_CERT_FILE : CA_KEY_FILE)} is there without ${haveCert ? CA_KEY_FILE : CA_CERT_FILE}: ` +
          'restore it, or remove both to make a new CA (and trust the new certificate instead)',
      );
    }
    if (haveCert) {
      chmodSync(keyPath, 0o600); // narrowed if someone widened it
      const pem = readFileSync(certPath, 'utf8');
      const key = await crypto.subtle.importKey('pkcs8', pemBody(readFileSync(keyPath, 'utf8')), EC, false, ['sign']);
      return new HubSpotHostsCa(pem, new x509.X509Certificate(pem), key);
    }
    const keys = await crypto.subtle.generateKey(EC, true, ['sign', 'verify']);
    const now = Date.now();
    const nameConstraints = hubSpotNamesOnly();
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=HubSpot hosts front (local test CA), O=hubspot-public-app-service',
      keys,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 10 * 365 * DAY),
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(nameConstraints)),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const keyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
    const certPem = certificate.toString('pem');
    // The key first, 0600 from its creation; each file appears whole (temp file, then rename).
    writeWhole(keyPath, keyPem, 0o600);
    writeWhole(certPath, `${certPem}\n`, 0o644);
    return new HubSpotHostsCa(`${certPem}\n`, certificate, keys.privateKey);
  }

  /** A certificate for one of HUBSPOT_HOSTS, made on first use and kept for the process. */
  leaf(host: string): Promise<LeafCertificate> {
    if (!HUBSPOT_HOSTS.includes(host)) throw new Error(`not a HubSpot host: ${host}`);
    let leaf = this.leaves.get(host);
    if (!leaf) {
      leaf = this.issue(host);
      this.leaves.set(host, leaf);
      leaf.catch(() => this.leaves.delete(host)); // a failed issue is tried again on the next connection
    }
    return leaf;
  }

  private async issue(host: string): Promise<LeafCertificate> {
    const keys = await crypto.subtle.generateKey(EC, true, ['sign', 'verify']);
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      subject: leafSubject(host),
      issuer: this.certificate.subject,
      publicKey: keys.publicKey,
      signingKey: this.key,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 90 * DAY), // well under the 398 days browsers accept
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: host }]),
        await x509.AuthorityKeyIdentifierExtension.create(this.certificate.publicKey),
      ],
    });
    const key = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
    return { key, cert: `${cert.toString('pem')}\n${this.certificatePem}` };
  }
}

/** A leaf's subject: the permitted directory name, then the host. */
export function leafSubject(host: string): string {
  return `${LEAF_SUBJECT_BASE}, CN=${host}`;
}

/**
 * The CA's name constraints: DNS names under HubSpot's domains only, no IP address (v4 or v6), and
 * the leaves' own subjects only (no CN-only certificate for another name).
 */
export function hubSpotNamesOnly(): NameConstraints {
  const directoryName = (host: string) => AsnConvert.parse(new x509.Name(leafSubject(host)).toArrayBuffer(), AsnName);
  return new NameConstraints({
    permittedSubtrees: new GeneralSubtrees([
      ...PERMITTED_DOMAINS.map((d) => new GeneralSubtree({ base: new GeneralName({ dNSName: d }) })),
      ...HUBSPOT_HOSTS.map(
        (host) => new GeneralSubtree({ base: new GeneralName({ directoryName: directoryName(host) }) }),
      ),
    ]),
    excludedSubtrees: new GeneralSubtrees(
      EXCLUDED_IP_RANGES.map((range) => new GeneralSubtree({ base: new GeneralName({ iPAddress: range }) })),
    ),
  });
}

function pemBody(pem: string): ArrayBuffer {
  const der = x509.PemConverter.decode(pem)[0];
  if (!der) throw new Error(`${CA_KEY_FILE} holds no PEM block`);
  return der;
}

function writeWhole(path: string, text: string, mode: number): void {
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, text, { mode, flag: 'w' });
  renameSync(temp, path);
}
