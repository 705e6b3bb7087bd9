import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { Authenticated } from '../../platform/http/authentication';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { AccountLimitsBusCommand } from '../application/account-limits.commands';
import { SCHEMA_WRITE_SCOPES } from '../domain/scopes';
import { parseSegment } from './query-params';

/**
 * `DELETE …/schemas/{objectType}/purge`: the purge of an archived custom object type as
 * `@hubspot/api-client` 11 calls it (`schemas.coreApi.purge`). Later clients and the dated specs
 * purge with `DELETE …/schemas/{objectType}?archived=true` (SchemasController); both are one
 * command. Served at v3 only, where that client calls it.
 */
@ApiTags('CRM schemas')
@Controller(['crm/v3/schemas', 'crm-object-schemas/v3/schemas'])
export class SchemaPurgeController {
  constructor(private readonly commandBus: CommandBus) {}

  @Delete(':objectType/purge')
  @HttpCode(204)
  @Authenticated({ by: 'bearer', scopes: SCHEMA_WRITE_SCOPES })
  @ApiOperation({ summary: 'Purge an archived custom object schema (the path @hubspot/api-client 11 calls)' })
  @WireResponse(204)
  async purge(
    @Param('objectType') objectType: string,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    parseSegment(objectType, 'objectType');
    await this.commandBus.execute(
      new AccountLimitsBusCommand(token.hubId, token.userId, { type: 'PurgeCustomObjectSchema', objectType }, ctx),
    );
  }
}
