import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../config/config';

/** The admin API key: from ADMIN_API_KEY, or generated per start in demo mode (printed in the banner). */
export class AdminKey {
  readonly generated: boolean;
  readonly value: string;
  constructor(config: AppConfig) {
    this.generated = config.adminApiKey === null;
    this.value = config.adminApiKey ?? `demo-admin-${randomBytes(18).toString('base64url')}`;
  }
}
