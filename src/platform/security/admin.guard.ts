import { CanActivate, ExecutionContext, Injectable, applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { HubSpotError } from '../errors/hubspot-error';
import type { RequestWithActor } from '../http/request-context';
import { constantTimeEqual } from './constant-time';
import { AdminKey } from './admin-key';

/** `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly adminKey: AdminKey) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithActor>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header.trim()) : null;
    if (!match || !constantTimeEqual(match[1]!, this.adminKey.value)) {
      throw HubSpotError.invalidAuthentication('The admin API needs Authorization: Bearer <ADMIN_API_KEY>.');
    }
    request.actor = 'admin';
    return true;
  }
}

/** Marks a controller or route as part of the admin API. */
export const AdminOnly = () => applyDecorators(UseGuards(AdminGuard), ApiBearerAuth());
