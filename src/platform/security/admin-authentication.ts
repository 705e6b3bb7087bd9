import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HubSpotError } from '../errors/hubspot-error';
import { Authenticators, type Caller } from '../http/authentication';
import type { RequestWithActor } from '../http/request-context';
import { constantTimeEqual } from './crypto';
import { AdminKey } from './admin-key';

const ADMIN: Caller = { actor: 'admin' };

/**
 * The `admin` credential of `@Authenticated({ by: 'admin' })`: `Authorization: Bearer <ADMIN_API_KEY>`,
 * compared in constant time. The admin key grants the whole admin API: no scopes.
 */
@Injectable()
export class AdminAuthentication implements OnModuleInit {
  constructor(
    private readonly adminKey: AdminKey,
    private readonly authenticators: Authenticators,
  ) {}

  onModuleInit(): void {
    this.authenticators.register('admin', (request) => this.authenticate(request));
  }

  private authenticate(request: Pick<RequestWithActor, 'headers'>): Caller {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header.trim()) : null;
    if (!match || !constantTimeEqual(match[1]!, this.adminKey.value)) {
      throw HubSpotError.invalidAuthentication(this.adminKey.refusalFor(match?.[1]));
    }
    return ADMIN;
  }
}
