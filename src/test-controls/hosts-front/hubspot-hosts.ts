// The front's names and files, apart from the CA's code (hubspot-hosts-ca.ts): that file loads
// @peculiar/x509 and its dependencies (about 170 modules, several MiB of heap), which a service
// with the front off never needs; the front loads it only when it starts.

/** HubSpot's API and app hosts, NA and EU: the only names the front answers for. */
export const HUBSPOT_HOSTS: readonly string[] = [
  'api.hubapi.com',
  'api.hubspot.com',
  'app.hubspot.com',
  'api-eu1.hubapi.com',
  'api-eu1.hubspot.com',
  'app-eu1.hubspot.com',
];
/** The CA's certificate and key in DATA_DIR. */
export const CA_CERT_FILE = 'hubspot-hosts-ca.pem';
export const CA_KEY_FILE = 'hubspot-hosts-ca-key.pem';
