import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../platform/http/authentication';
import { DirectoryQueries } from '../../directory/directory.queries';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { InstallQueries, InstallView } from '../application/install.queries';
import { ApproveInstall } from '../application/commands/approve-install';
import { Uninstall } from '../application/commands/uninstall';
import {
  ExpireInstallAccessTokens,
  type ExpiredInstallAccessTokens,
} from '../application/commands/expire-install-access-tokens';
import { redirectWithParams } from '../domain/redirect-url';
import { ProgrammaticInstallDto } from './installs.dto';

const Limit = new IntParamPipe({ min: 1, max: 1000, optional: true });
const After = new IntParamPipe({ min: 0, optional: true });
const DEFAULT_LIMIT = 100;

export interface InstallsPage {
  results: InstallView[];
  /** Present when more installs follow: pass `after` back for the next page. */
  paging?: { next: { after: string } };
}

/** One page, looking one row ahead so `paging.next` appears only when a next page has rows. */
function page(
  fetch: (after: number, limit: number) => InstallView[],
  key: (i: InstallView) => number,
  after = 0,
  limit = DEFAULT_LIMIT,
): InstallsPage {
  const rows = fetch(after, limit + 1);
  const results = rows.slice(0, limit);
  return rows.length > limit ? { results, paging: { next: { after: String(key(results.at(-1)!)) } } } : { results };
}

/** Installs for harnesses that cannot click through the page: the same command and events as the page. */
@ApiTags('admin: installs')
@Authenticated({ by: 'admin' })
@Controller('admin/v1')
export class InstallsAdminController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: InstallQueries,
    private readonly directory: DirectoryQueries,
  ) {}

  @Post('apps/:appId/installs')
  @HttpCode(201)
  @ApiOperation({ summary: 'Approve an install as a user would on the page; returns the authorization code' })
  async install(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: ProgrammaticInstallDto,
    @Ctx() ctx: CommandContext,
  ): Promise<{ code: string; redirectUrl: string; scopes: string[] }> {
    const app = this.directory.getApp(appId);
    if (!app) throw HubSpotError.notFound(`No app with appId ${appId}`);
    const { code, grantedScopes } = await this.commandBus.execute(
      new ApproveInstall(
        {
          clientId: app.clientId,
          redirectUri: body.redirectUri,
          hubId: body.hubId,
          userId: body.userId,
          requestedScopes: body.scopes ?? app.requiredScopes,
          requestedOptionalScopes: body.optionalScopes ?? app.optionalScopes,
          ...(body.codeChallenge !== undefined ? { codeChallenge: body.codeChallenge } : {}),
          ...(body.codeChallengeMethod !== undefined ? { codeChallengeMethod: body.codeChallengeMethod } : {}),
        },
        { ...ctx, actor: `admin/user:${body.userId}` },
      ),
    );
    return {
      code,
      redirectUrl: redirectWithParams(body.redirectUri, { code, state: body.state }),
      scopes: grantedScopes,
    };
  }

  @Get('apps/:appId/installs')
  @ApiOperation({ summary: 'Accounts that currently have the app installed, by hubId, a page at a time' })
  @ApiQuery({ name: 'after', required: false, description: 'paging.next.after of the previous page' })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 1000, default 100' })
  listOfApp(
    @Param('appId', new IntParamPipe()) appId: number,
    @Query('after', After) after?: number,
    @Query('limit', Limit) limit?: number,
  ): InstallsPage {
    if (!this.directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
    return page(
      (a, l) => this.queries.listInstallsOfApp(appId, a, l),
      (i) => i.hubId,
      after,
      limit,
    );
  }

  @Get('accounts/:hubId/installs')
  @ApiOperation({ summary: 'Apps currently installed in the account, by appId, a page at a time' })
  @ApiQuery({ name: 'after', required: false, description: 'paging.next.after of the previous page' })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 1000, default 100' })
  listOfAccount(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Query('after', After) after?: number,
    @Query('limit', Limit) limit?: number,
  ): InstallsPage {
    if (!this.directory.getAccount(hubId)) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
    return page(
      (a, l) => this.queries.listInstallsOfAccount(hubId, a, l),
      (i) => i.appId,
      after,
      limit,
    );
  }

  @Delete('accounts/:hubId/installs/:appId')
  @HttpCode(204)
  @ApiOperation({ summary: "Uninstall: AppUninstalled; the install's refresh tokens stop working" })
  async uninstall(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('appId', new IntParamPipe()) appId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.commandBus.execute(new Uninstall(appId, hubId, ctx));
  }

  /** Testing token expiry without waiting: the install's access tokens issued so far expire now. */
  @Post('accounts/:hubId/installs/:appId/expire-access-tokens')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Expire every access token of the install now (InstallAccessTokensExpired); refresh tokens keep working',
  })
  expireAccessTokens(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('appId', new IntParamPipe()) appId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<ExpiredInstallAccessTokens> {
    return this.commandBus.execute(new ExpireInstallAccessTokens(appId, hubId, ctx));
  }
}
