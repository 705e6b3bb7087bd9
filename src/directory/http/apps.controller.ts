import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { RegisterApp } from '../application/commands/register-app';
import { AppView, DirectoryQueries } from '../directory.queries';
import { RegisterAppDto } from './directory.dto';

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

  @Get(':appId')
  get(@Param('appId', new IntParamPipe()) appId: number): AppView {
    const app = this.queries.getApp(appId);
    if (!app) throw HubSpotError.notFound(`No app with appId ${appId}`);
    return app;
  }
}
