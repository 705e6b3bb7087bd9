import { CanActivate, ExecutionContext, Injectable, OnModuleInit, applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { HubSpotError } from '../errors/hubspot-error';
import { AuthenticateBeforeBody, EarlyAuthentication } from '../http/early-authentication';
import type { RequestWithActor } from '../http/request-context';
import { constantTimeEqual } from './crypto';
import { AdminKey } from './admin-key';

/**
 * `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time: in onRequest, before the body
 * is read (EarlyAuthentication), and again as the route's guard.
 */
@Injectable()
export class AdminGuard implements CanActivate, OnModuleInit {
  constructor(
    private readonly adminKey: AdminKey,
    private readonly earlyAuthentication: EarlyAuthentication,
  ) {}

  onModuleInit(): void {
    this.earlyAuthentication.register('admin', (request) => this.authenticate(request));
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithActor>();
    this.authenticate(request);
    request.actor = 'admin';
    return true;
  }

  private authenticate(request: Pick<RequestWithActor, 'headers'>): void {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header.trim()) : null;
    if (!match || !constantTimeEqual(match[1]!, this.adminKey.value)) {
      throw HubSpotError.invalidAuthentication('The admin API needs Authorization: Bearer <ADMIN_API_KEY>.');
    }
  }
}

/** Marks a controller or route as part of the admin API. */
export const AdminOnly = () => applyDecorators(AuthenticateBeforeBody('admin'), UseGuards(AdminGuard), ApiBearerAuth());
