import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../../directory/admin.guard';
import { DirectoryQueries } from '../../directory/directory.queries';
import type { CommandContext } from '../../shared/events/envelope';
import { HubSpotError } from '../../shared/errors/hubspot-error';
import { IntParamPipe } from '../../shared/http/int-param.pipe';
import { Ctx } from '../../shared/http/request-context';
import { InstallQueries, InstallView } from '../application/install.queries';
import { InstallService } from '../application/install.service';
import { redirectWithParams } from '../domain/redirect-url';
import { ProgrammaticInstallDto } from './installs.dto';

/** Installs for harnesses that cannot click through the page: the same command and events as the page. */
@ApiTags('admin: installs')
@AdminOnly()
@Controller('admin/v1')
export class InstallsAdminController {
  constructor(
    private readonly installs: InstallService,
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
    const { code, grantedScopes } = await this.installs.approveInstall(
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
    );
    return {
      code,
      redirectUrl: redirectWithParams(body.redirectUri, { code, state: body.state }),
      scopes: grantedScopes,
    };
  }

  @Get('apps/:appId/installs')
  @ApiOperation({ summary: 'Accounts that currently have the app installed' })
  listOfApp(@Param('appId', new IntParamPipe()) appId: number): { results: InstallView[] } {
    if (!this.directory.getApp(appId)) throw HubSpotError.notFound(`No app with appId ${appId}`);
    return { results: this.queries.listInstallsOfApp(appId) };
  }

  @Get('accounts/:hubId/installs')
  @ApiOperation({ summary: 'Apps currently installed in the account' })
  listOfAccount(@Param('hubId', new IntParamPipe()) hubId: number): { results: InstallView[] } {
    if (!this.directory.getAccount(hubId)) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
    return { results: this.queries.listInstallsOfAccount(hubId) };
  }

  @Delete('accounts/:hubId/installs/:appId')
  @HttpCode(204)
  @ApiOperation({ summary: "Uninstall: AppUninstalled; the install's refresh tokens stop working" })
  async uninstall(
    @Param('hubId', new IntParamPipe()) hubId: number,
    @Param('appId', new IntParamPipe()) appId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    await this.installs.uninstall(appId, hubId, ctx);
  }
}
