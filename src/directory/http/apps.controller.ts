import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { ChangeAppSettings } from '../application/commands/change-app-settings';
import { RegisterApp } from '../application/commands/register-app';
import { RotateClientSecret } from '../application/commands/rotate-client-secret';
import type { AppSettingsPatch } from '../domain/directory-deciders';
import { AppView, DirectoryQueries } from '../directory.queries';
import { ChangeAppSettingsDto, RegisterAppDto } from './directory.dto';

@ApiTags('admin: directory')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/apps')
export class AppsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: DirectoryQueries,
  ) {}

  /** The only response that ever contains the client secret. */
  @Post()
  @HttpCode(201)
  async register(
    @Body() body: RegisterAppDto,
    @Ctx() ctx: CommandContext,
  ): Promise<AppView & { clientSecret: string }> {
    const { app, clientSecret } = await this.commandBus.execute(
      new RegisterApp({ ...body, optionalScopes: body.optionalScopes ?? [] }, ctx),
    );
    return { ...app, clientSecret };
  }

  @Get()
  list(
    @Query('after', new IntParamPipe({ min: 0, optional: true })) after?: number,
    @Query('limit', new IntParamPipe({ min: 1, max: 1000, optional: true })) limit?: number,
  ) {
    return { results: this.queries.listApps(after ?? 0, limit ?? 100) };
  }

  @Patch(':appId')
  @ApiOperation({
    summary: "Change the app's name, redirect URLs or scopes (each a whole list); absent fields stay",
  })
  update(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: ChangeAppSettingsDto,
    @Ctx() ctx: CommandContext,
  ): Promise<AppView> {
    const patch: AppSettingsPatch = {};
    if (body.name !== undefined) patch.name = body.name;
    if (body.redirectUrls !== undefined) patch.redirectUrls = body.redirectUrls;
    if (body.requiredScopes !== undefined) patch.requiredScopes = body.requiredScopes;
    if (body.optionalScopes !== undefined) patch.optionalScopes = body.optionalScopes;
    return this.commandBus.execute(new ChangeAppSettings(appId, patch, ctx));
  }

  /** The only response besides the registration's that contains a client secret. */
  @Post(':appId/client-secret')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Rotate the client secret: the new one is answered once; the old one stops authenticating at the token ' +
      'endpoint at once; access and refresh tokens already issued keep working',
  })
  async rotateClientSecret(
    @Param('appId', new IntParamPipe()) appId: number,
    @Ctx() ctx: CommandContext,
  ): Promise<AppView & { clientSecret: string }> {
    const { app, clientSecret } = await this.commandBus.execute(new RotateClientSecret(appId, ctx));
    return { ...app, clientSecret };
  }

  @Get(':appId')
  get(@Param('appId', new IntParamPipe()) appId: number): AppView {
    const app = this.queries.getApp(appId);
    if (!app) throw HubSpotError.notFound(`No app with appId ${appId}`);
    return app;
  }
}
