import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../platform/events/envelope';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { Authenticated } from '../../platform/http/authentication';
import { CreateUser } from '../application/commands/create-user';
import { DirectoryQueries, UserView } from '../directory.queries';
import { CreateUserDto } from './directory.dto';

@ApiTags('admin: directory')
@Authenticated({ by: 'admin' })
@Controller('admin/v1/users')
export class UsersController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: DirectoryQueries,
  ) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: CreateUserDto, @Ctx() ctx: CommandContext): Promise<UserView> {
    return this.commandBus.execute(new CreateUser(body.email, body.password, body.hubIds, ctx));
  }

  @Get()
  list(
    @Query('after', new IntParamPipe({ min: 0, optional: true })) after?: number,
    @Query('limit', new IntParamPipe({ min: 1, max: 1000, optional: true })) limit?: number,
  ) {
    return { results: this.queries.listUsers(after ?? 0, limit ?? 100) };
  }

  @Get(':userId')
  get(@Param('userId', new IntParamPipe()) userId: number): UserView {
    const user = this.queries.getUser(userId);
    if (!user) throw HubSpotError.notFound(`No user with userId ${userId}`);
    return user;
  }
}
