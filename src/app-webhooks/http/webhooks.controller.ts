import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DirectoryQueries } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, RouteVersion, versionedPaths } from '../../platform/http/api-versions';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { anyVersion } from '../../platform/http/wire-schema';
import { WireResponse } from '../../platform/http/wire-response';
import { AppWebhooksBusCommand } from '../application/app-webhooks.commands';
import { type SettingsView, type SubscriptionView, WebhooksQueries } from '../application/webhooks.queries';
import { subscriptionNotFound } from '../domain/app-webhooks.decider';
import { settingsOf, subscriptionOf } from './webhooks-input';
import { SettingsDto, SubscriptionBatchUpdateDto, SubscriptionCreateDto, SubscriptionPatchDto } from './webhooks.dto';
import {
  SETTINGS_SCHEMA,
  SUBSCRIPTION_BATCH_2026_09_SCHEMA,
  SUBSCRIPTION_BATCH_SCHEMA,
  SUBSCRIPTION_BATCH_WITH_ERRORS_SCHEMA,
  SUBSCRIPTION_LIST_SCHEMA,
  SUBSCRIPTION_SCHEMA,
} from './wire-schemas';
import { Caller, checkAppOwnership, type WebhooksCaller, WebhooksRead, WebhooksWrite } from './webhooks-auth';

export const WEBHOOKS_PATHS = {
  v3: 'webhooks/v3',
  '2026-03': 'webhooks/2026-03',
  '2026-09': 'app-webhooks/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

const iso = (ms: number) => new Date(ms).toISOString();

export function settingsResponse(s: SettingsView) {
  return {
    createdAt: iso(s.createdAt),
    targetUrl: s.targetUrl,
    throttling: { maxConcurrentRequests: s.maxConcurrentRequests },
    updatedAt: iso(s.updatedAt),
  };
}

export function subscriptionResponse(s: SubscriptionView) {
  return {
    active: s.active,
    createdAt: iso(s.createdAt),
    eventType: s.eventType,
    // HubSpot's SubscriptionResponse states the id as a string (paths and payloads use the number).
    id: String(s.id),
    ...(s.propertyName === null ? {} : { propertyName: s.propertyName }),
    ...(s.objectTypeId === null ? {} : { objectTypeId: s.objectTypeId }),
    updatedAt: iso(s.updatedAt),
  };
}

/**
 * HubSpot's webhooks API of a public app (webhooks.json of v3, 2026-03 and 2026-09): the app's one
 * target URL with its concurrency, and its event subscriptions. Deliveries follow from the CRM's
 * events (docs/webhooks.md).
 */
@ApiTags('Webhooks')
@Controller(versionedPaths(WEBHOOKS_PATHS))
export class WebhooksController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queries: WebhooksQueries,
    private readonly directory: DirectoryQueries,
  ) {}

  @Get(':appId/settings')
  @WebhooksRead()
  @ApiOperation({ summary: 'The app’s webhook settings (404 when none are configured)' })
  @WireResponse(200, SETTINGS_SCHEMA, { description: 'SettingsResponse' })
  getSettings(@Param('appId', new IntParamPipe()) appId: number, @Caller() caller: WebhooksCaller) {
    checkAppOwnership(this.directory, caller, appId);
    const settings = this.queries.settings(appId);
    if (!settings) throw HubSpotError.notFound(`No webhook settings for app ${appId}.`);
    return settingsResponse(settings);
  }

  @Put(':appId/settings')
  @WebhooksWrite()
  @ApiOperation({ summary: 'Set the app’s target URL and concurrency (https; http for loopback hosts only)' })
  @WireResponse(200, SETTINGS_SCHEMA, { description: 'SettingsResponse' })
  async configure(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: SettingsDto,
    @Caller() caller: WebhooksCaller,
    @Ctx() ctx: CommandContext,
  ) {
    checkAppOwnership(this.directory, caller, appId);
    const settings = settingsOf(body);
    const view = await this.commandBus.execute(
      new AppWebhooksBusCommand({ type: 'ConfigureSettings', appId, ...settings }, ctx),
    );
    return settingsResponse(view);
  }

  @Delete(':appId/settings')
  @HttpCode(204)
  @WebhooksWrite()
  @ApiOperation({ summary: 'Clear the settings: deliveries pause, subscriptions stay' })
  async clear(
    @Param('appId', new IntParamPipe()) appId: number,
    @Caller() caller: WebhooksCaller,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    checkAppOwnership(this.directory, caller, appId);
    await this.commandBus.execute(new AppWebhooksBusCommand({ type: 'ClearSettings', appId }, ctx));
  }

  @Get(':appId/subscriptions')
  @WebhooksRead()
  @ApiOperation({ summary: 'The app’s subscriptions, active and paused' })
  @WireResponse(200, SUBSCRIPTION_LIST_SCHEMA, { description: 'SubscriptionListResponse' })
  list(@Param('appId', new IntParamPipe()) appId: number, @Caller() caller: WebhooksCaller) {
    checkAppOwnership(this.directory, caller, appId);
    return { results: this.queries.subscriptions(appId).map(subscriptionResponse) };
  }

  @Post(':appId/subscriptions')
  @HttpCode(201)
  @WebhooksWrite()
  @ApiOperation({ summary: 'Create a subscription (propertyChange needs propertyName; object.* needs objectTypeId)' })
  @WireResponse(201, SUBSCRIPTION_SCHEMA, { description: 'SubscriptionResponse' })
  async create(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: SubscriptionCreateDto,
    @Caller() caller: WebhooksCaller,
    @RouteVersion() version: ApiVersion,
    @Ctx() ctx: CommandContext,
  ) {
    checkAppOwnership(this.directory, caller, appId);
    const input = subscriptionOf(body, version === '2026-09');
    const view = await this.commandBus.execute(
      new AppWebhooksBusCommand({ type: 'CreateSubscription', appId, ...input }, ctx),
    );
    return subscriptionResponse(view);
  }

  @Post(':appId/subscriptions/batch/update')
  @WebhooksWrite()
  @ApiOperation({ summary: 'Activate or pause several subscriptions (unknown ids in errors: 207; 200 at 2026-09)' })
  @WireResponse(200, anyVersion({ v3: SUBSCRIPTION_BATCH_SCHEMA, '2026-09': SUBSCRIPTION_BATCH_2026_09_SCHEMA }), {
    description: 'BatchResponseSubscriptionResponse',
  })
  @WireResponse(207, SUBSCRIPTION_BATCH_WITH_ERRORS_SCHEMA, {
    description: 'BatchResponseSubscriptionResponseWithErrors (v3, 2026-03)',
  })
  async batchUpdate(
    @Param('appId', new IntParamPipe()) appId: number,
    @Body() body: SubscriptionBatchUpdateDto,
    @Caller() caller: WebhooksCaller,
    @RouteVersion() version: ApiVersion,
    @Ctx() ctx: CommandContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    checkAppOwnership(this.directory, caller, appId);
    const startedAt = new Date().toISOString();
    const inputs = body.inputs.map(({ id, active }) => ({ id, active }));
    const { results, rejected } = await this.commandBus.execute(
      new AppWebhooksBusCommand({ type: 'BatchUpdateSubscriptions', appId, inputs }, ctx),
    );
    const answer = {
      status: 'COMPLETE',
      results: results.map(subscriptionResponse),
      startedAt,
      completedAt: new Date().toISOString(),
    };
    if (rejected.length === 0) {
      reply.status(200);
      return answer;
    }
    // 2026-09 states no 207: the unknown ids come back in the 200's errors.
    reply.status(version === '2026-09' ? 200 : 207);
    return {
      ...answer,
      numErrors: rejected.length,
      errors: rejected.map((r) => ({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `Subscription ${r.id} of app ${appId} was not found.`,
        context: { ids: [String(r.id)] },
        errors: [],
        links: {},
      })),
    };
  }

  @Get(':appId/subscriptions/:subscriptionId')
  @WebhooksRead()
  @ApiOperation({ summary: 'One subscription' })
  @WireResponse(200, SUBSCRIPTION_SCHEMA, { description: 'SubscriptionResponse' })
  getById(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('subscriptionId', new IntParamPipe()) subscriptionId: number,
    @Caller() caller: WebhooksCaller,
  ) {
    checkAppOwnership(this.directory, caller, appId);
    const view = this.queries.subscription(appId, subscriptionId);
    if (!view) throw subscriptionNotFound(appId, subscriptionId);
    return subscriptionResponse(view);
  }

  @Patch(':appId/subscriptions/:subscriptionId')
  @WebhooksWrite()
  @ApiOperation({ summary: 'Activate or pause a subscription' })
  @WireResponse(200, SUBSCRIPTION_SCHEMA, { description: 'SubscriptionResponse' })
  async update(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('subscriptionId', new IntParamPipe()) subscriptionId: number,
    @Body() body: SubscriptionPatchDto,
    @Caller() caller: WebhooksCaller,
    @Ctx() ctx: CommandContext,
  ) {
    checkAppOwnership(this.directory, caller, appId);
    const { active } = body;
    const view = await this.commandBus.execute(
      new AppWebhooksBusCommand({ type: 'UpdateSubscription', appId, subscriptionId, active }, ctx),
    );
    return subscriptionResponse(view);
  }

  @Delete(':appId/subscriptions/:subscriptionId')
  @HttpCode(204)
  @WebhooksWrite()
  @ApiOperation({ summary: 'Delete a subscription' })
  async archive(
    @Param('appId', new IntParamPipe()) appId: number,
    @Param('subscriptionId', new IntParamPipe()) subscriptionId: number,
    @Caller() caller: WebhooksCaller,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    checkAppOwnership(this.directory, caller, appId);
    await this.commandBus.execute(
      new AppWebhooksBusCommand({ type: 'DeleteSubscription', appId, subscriptionId }, ctx),
    );
  }
}
