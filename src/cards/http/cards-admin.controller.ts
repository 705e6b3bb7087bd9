import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../platform/http/authentication';
import { DirectoryQueries } from '../../directory/directory.queries';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { AppOwnership } from '../application/app-ownership';
import { CardsQueries } from '../application/cards.queries';
import { CreateAppCard } from '../application/commands/create-app-card';
import { CreateAppCardDto } from './card.dto';

/** Admin side of cards: an app's app cards, migration counts, and every account's CRM views. */
@ApiTags('admin: cards')
@Authenticated({ by: 'admin' })
@Controller('admin/v1')
export class CardsAdminController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: CardsQueries,
    private readonly ownership: AppOwnership,
    private readonly directory: DirectoryQueries,
  ) {}

  @Post('apps/:appId/app-cards')
  @HttpCode(201)
  async createAppCard(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: CreateAppCardDto,
    @Ctx() ctx: CommandContext,
  ) {
    this.ownership.existingApp(appId);
    return this.commandBus.execute(new CreateAppCard(appId, body.title, [...body.objectTypes], ctx));
  }

  @Get('apps/:appId/app-cards')
  listAppCards(@Param('appId', new IntParamPipe()) appId: number) {
    this.ownership.existingApp(appId);
    return { results: this.queries.appCardsOfApp(appId) };
  }

  /** The migration-counts read model of the app's legacy cards. */
  @Get('apps/:appId/card-migrations')
  listMigrations(@Param('appId', new IntParamPipe()) appId: number) {
    this.ownership.existingApp(appId);
    return { results: this.queries.migrationsOfApp(appId) };
  }

  @Get('accounts/:hubId/views')
  accountViews(@Param('hubId', new IntParamPipe()) hubId: number) {
    if (!this.directory.getAccount(hubId)) throw HubSpotError.notFound(`No account with hubId ${hubId}`);
    return { hubId, views: this.queries.accountViews(hubId) };
  }
}
