import { connectTarget } from '../../src/controls/hosts-front/hubspot-hosts-front';
import { ConfigError, loadConfig } from '../../src/platform/config/config';

const base = { ADMIN_API_KEY: 'x'.repeat(16), SEED: 'none' };

describe('HUBSPOT_HOSTS_PROXY_PORT', () => {
  it('is off unless set; takes a port, 0 for any free one', () => {
    expect(loadConfig(base).hubspotHostsProxyPort).toBeNull();
    expect(loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: '8443' }).hubspotHostsProxyPort).toBe(8443);
    expect(loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: '0' }).hubspotHostsProxyPort).toBe(0);
  });

  it.each(['-1', '65536', 'abc', '80.5'])('refuses %s', (value) => {
    expect(() => loadConfig({ ...base, HUBSPOT_HOSTS_PROXY_PORT: value })).toThrow(ConfigError);
  });

  it('must differ from PORT', () => {
    expect(() => loadConfig({ ...base, PORT: '3000', HUBSPOT_HOSTS_PROXY_PORT: '3000' })).toThrow(
      /HUBSPOT_HOSTS_PROXY_PORT must differ from PORT/,
    );
  });
});

describe('connectTarget', () => {
  it('reads host:port, lower-cased', () => {
    expect(connectTarget('API.HubAPI.com:443')).toEqual({ host: 'api.hubapi.com', port: 443 });
  });
  it.each([undefined, '', 'api.hubapi.com', 'api.hubapi.com:', '[::1]:443', 'a b:443', 'user@api.hubapi.com:443'])(
    'refuses %p',
    (authority) => {
      expect(connectTarget(authority)).toBeNull();
    },
  );
});
