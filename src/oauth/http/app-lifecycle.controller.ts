import { Controller, Delete, Get, HttpCode, Inject } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AccountDetailsView, DirectoryQueries } from '../../directory';
import { CLOCK, type Clock } from '../../platform/clock';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { Uninstall } from '../application/commands/uninstall';
import type { AccessTokenClaims } from '../domain/access-token';
import { RequireScopes, Token } from './bearer-token.guard';
import { WireResponse } from '../../platform/http/wire-response';
import { PORTAL_INFORMATION_SCHEMA } from './wire-schemas';

/**
 * `DELETE /appinstalls/{v3|2026-03|2026-09}/external-install` (appUninstalls.json): the app
 * uninstalls itself from the account its token is for — the same Uninstall command and
 * `oauth.AppUninstalled` event as the admin API's uninstall, with the token as the actor.
 */
@ApiTags('app lifecycle')
@Controller(
  versionedPaths({ v3: 'appinstalls/v3', '2026-03': 'appinstalls/2026-03', '2026-09': 'appinstalls/2026-09' }),
)
export class AppUninstallsController {
  constructor(private readonly commandBus: CommandBus) {}

  @Delete('external-install')
  @HttpCode(204)
  @RequireScopes('oauth')
  @ApiOperation({ summary: "Uninstall the token's app from the token's account" })
  @WireResponse(204)
  async uninstall(@Token() token: AccessTokenClaims, @Ctx() ctx: CommandContext): Promise<void> {
    await this.commandBus.execute(new Uninstall(token.appId, token.hubId, ctx));
  }
}

/**
 * `GET /account-info/{v3|2026-03|2026-09}/details` (accountInfo.json): the PortalInformationResponse
 * of the token's account, its UTC offset computed for now (the injected clock) from its time zone.
 */
@ApiTags('account info')
@Controller(
  versionedPaths({ v3: 'account-info/v3', '2026-03': 'account-info/2026-03', '2026-09': 'account-info/2026-09' }),
)
export class AccountInfoController {
  constructor(
    private readonly directory: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('details')
  @RequireScopes('oauth')
  @ApiOperation({ summary: "The token's account: type, time zone, currencies, data hosting location" })
  @WireResponse(200, PORTAL_INFORMATION_SCHEMA, { description: 'PortalInformationResponse' })
  details(@Token() token: AccessTokenClaims): AccountDetailsView {
    const details = this.directory.getAccountDetails(token.hubId, this.clock.now());
    if (!details) throw HubSpotError.notFound(`No account with hubId ${token.hubId}`);
    return details;
  }
}
