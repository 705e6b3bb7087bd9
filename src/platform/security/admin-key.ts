import type { AppConfig } from '../config/config';
import { loadOrCreateLocalKey } from './signing-keys';

export const DEMO_ADMIN_KEY_FILE = 'admin-key.json';
const DEMO_PREFIX = 'demo-admin-';

/**
 * The admin API key: ADMIN_API_KEY's value, or in demo mode one kept in DATA_DIR/admin-key.json
 * (0600, like the signing key), so it stays the same across restarts of one DATA_DIR and the
 * banner's key keeps working in scripts and docs.
 */
export class AdminKey {
  /** True when this service chose the key (demo mode): the banner prints it. */
  readonly generated: boolean;
  readonly value: string;
  constructor(config: AppConfig) {
    this.generated = config.adminApiKey === null;
    this.value =
      config.adminApiKey ??
      `${DEMO_PREFIX}${loadOrCreateLocalKey(config.dataDir, DEMO_ADMIN_KEY_FILE).secret.subarray(0, 18).toString('base64url')}`;
  }

  /**
   * Why a presented key was refused, in words that say which key is expected: a 401 that only says
   * "unauthorized" sends a person back to the logs.
   */
  refusalFor(presented: string | undefined): string {
    const which = this.generated
      ? `the demo admin key printed in the start banner (it begins with ${DEMO_PREFIX} and is kept in DATA_DIR/${DEMO_ADMIN_KEY_FILE})`
      : 'the value of ADMIN_API_KEY';
    if (presented === undefined) return `The admin API needs Authorization: Bearer <admin key>, with ${which}.`;
    if (!this.generated && presented.startsWith(DEMO_PREFIX)) {
      return `That is a demo admin key, but this service runs with ADMIN_API_KEY: send its value.`;
    }
    if (this.generated && presented.startsWith(DEMO_PREFIX)) {
      return `That demo admin key is not this service's (another DATA_DIR?): send ${which}.`;
    }
    return `That is not this service's admin key: send ${which}.`;
  }
}
