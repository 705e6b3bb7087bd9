import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { CrmPipelinesCommand } from '../application/crm-pipelines.handler';
import {
  type PipelineAuditView,
  PipelinesQueries,
  type PipelineStageView,
  type PipelineView,
} from '../crm-pipelines.queries';
import { LimitsQueries, standardObjectType } from '../../crm-schema';
import { isPipelineType, type PipelineObjectTypeId, pipelineTypeOf } from '../domain/default-pipelines';
import { pipelineNotFound, stageNotFound, unknownPipelineObjectType } from '../domain/pipeline-errors';
import {
  parsePathId,
  parseQueryFlag,
  pipelineInputOf,
  pipelinePatchOf,
  stageInputOf,
  stagePatchOf,
} from './pipeline-input';
import {
  PipelineCreateDto,
  PipelinePatchDto,
  PipelineReplaceDto,
  StageCreateDto,
  StagePatchDto,
  StageReplaceDto,
} from './pipeline.dto';
import {
  PIPELINE_AUDITS_SCHEMA,
  PIPELINE_SCHEMA,
  PIPELINE_STAGE_SCHEMA,
  PIPELINE_STAGES_SCHEMA,
  PIPELINES_SCHEMA,
} from './wire-schemas';

const PIPELINES_PATHS = {
  v3: 'crm/v3/pipelines',
  '2026-03': 'crm/pipelines/2026-03',
  '2026-09': 'crm/pipelines/2026-09',
} as const satisfies Partial<Record<ApiVersion, string>>;

/** The scopes HubSpot's pipelines.json accepts for deals, tickets and custom objects ("any of"). */
const SCOPES: Record<'0-3' | '0-5' | 'custom', Record<'read' | 'write', readonly string[]>> = {
  '0-3': {
    read: [
      'crm.objects.deals.read',
      'crm.objects.deals.write',
      'crm.schemas.deals.read',
      'crm.objects.deals.sensitive.read.v2',
      'crm.objects.deals.highly_sensitive.read.v2',
      'crm.objects.deals.sensitive.write.v2',
      'crm.objects.deals.highly_sensitive.write.v2',
    ],
    write: ['crm.schemas.deals.write'],
  },
  '0-5': {
    read: [
      'tickets',
      'crm.schemas.tickets.read',
      'crm.objects.tickets.sensitive.read',
      'crm.objects.tickets.highly_sensitive.read',
      'tickets.sensitive.v2',
      'tickets.highly_sensitive.v2',
    ],
    write: [
      'tickets',
      'crm.schemas.tickets.write',
      'crm.objects.tickets.sensitive.write',
      'crm.objects.tickets.highly_sensitive.write',
      'tickets.sensitive.v2',
      'tickets.highly_sensitive.v2',
    ],
  },
  custom: {
    read: [
      'crm.objects.custom.read',
      'crm.objects.custom.write',
      'crm.schemas.custom.read',
      'crm.objects.custom.sensitive.read.v2',
      'crm.objects.custom.highly_sensitive.read.v2',
      'crm.objects.custom.sensitive.write.v2',
      'crm.objects.custom.highly_sensitive.write.v2',
    ],
    write: ['crm.schemas.custom.write'],
  },
};

/**
 * Which scopes the path's object type takes, decided before anything is looked up: deals, tickets,
 * or (any other name that is not a standard type) a custom object's; a standard type without
 * pipelines is HubSpot's 400.
 */
function scopeKeyOfPath(raw: string): keyof typeof SCOPES {
  const type = pipelineTypeOf(raw);
  if (type) return type;
  if (standardObjectType(raw) || raw.trim() === '') throw unknownPipelineObjectType(raw.slice(0, 100));
  return 'custom';
}

/** The route's scope rule: the scopes of its object type (read or write). */
const pipelineScopes =
  (access: 'read' | 'write') =>
  (route: RouteFacts): readonly string[] =>
    SCOPES[scopeKeyOfPath(route.params.objectType ?? '')][access];

type Flags = Record<string, unknown>;
const usagesAsked = (q: Flags) =>
  parseQueryFlag(q.validateReferencesBeforeDelete, 'validateReferencesBeforeDelete') ||
  parseQueryFlag(q.validateDealStageUsagesBeforeDelete, 'validateDealStageUsagesBeforeDelete');

/**
 * Pipelines of deals and tickets and their stages at v3, 2026-03 and 2026-09 (HubSpot's
 * pipelines.json). Reads from the `crm-pipelines` read model; HubSpot's default pipeline of each
 * type is there before any write.
 */
@ApiTags('CRM pipelines')
@Controller(versionedPaths(PIPELINES_PATHS))
export class PipelinesController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(PipelinesQueries) private readonly queries: PipelinesQueries,
    private readonly limits: LimitsQueries,
  ) {}

  @Get(':objectType')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('read') })
  @ApiOperation({ summary: 'The active pipelines of deals or tickets' })
  @WireResponse(200, PIPELINES_SCHEMA, { description: 'CollectionResponsePipelineNoPaging' })
  list(@Param('objectType') objectType: string, @Token() token: AccessTokenClaims): { results: PipelineView[] } {
    const type = this.typeOf(token, objectType, 'read');
    return { results: this.queries.list(token.hubId, type) };
  }

  @Post(':objectType')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a pipeline with its stages' })
  @WireResponse(201, PIPELINE_SCHEMA, { description: 'Pipeline' })
  create(
    @Param('objectType') objectType: string,
    @Body() body: PipelineCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PipelineView> {
    const type = this.typeOf(token, objectType, 'write');
    const input = pipelineInputOf(body);
    return this.commandBus.execute(
      new CrmPipelinesCommand(
        { type: 'CreatePipeline', hubId: token.hubId, objectTypeId: type, input, userId: token.userId },
        ctx,
      ),
    );
  }

  @Get(':objectType/:pipelineId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('read') })
  @ApiOperation({ summary: 'One pipeline' })
  @WireResponse(200, PIPELINE_SCHEMA, { description: 'Pipeline' })
  get(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Token() token: AccessTokenClaims,
  ): PipelineView {
    const type = this.typeOf(token, objectType, 'read');
    const view = this.queries.get(token.hubId, type, parsePathId(pipelineId, 'pipelineId'));
    if (!view) throw pipelineNotFound(pipelineId);
    return view;
  }

  @Put(':objectType/:pipelineId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @ApiOperation({ summary: 'Replace a pipeline (stages not listed are archived)' })
  @ApiQuery({ name: 'validateReferencesBeforeDelete', required: false, type: Boolean })
  @ApiQuery({ name: 'validateDealStageUsagesBeforeDelete', required: false, type: Boolean })
  @WireResponse(200, PIPELINE_SCHEMA, { description: 'Pipeline' })
  replace(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Query() query: Flags,
    @Body() body: PipelineReplaceDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PipelineView> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    const validateUsages = usagesAsked(query);
    const input = pipelineInputOf(body);
    return this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'ReplacePipeline',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          input,
          validateUsages,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Patch(':objectType/:pipelineId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @ApiOperation({ summary: 'Update a pipeline’s label, order, or archived flag' })
  @ApiQuery({ name: 'validateReferencesBeforeDelete', required: false, type: Boolean })
  @ApiQuery({ name: 'validateDealStageUsagesBeforeDelete', required: false, type: Boolean })
  @WireResponse(200, PIPELINE_SCHEMA, { description: 'Pipeline' })
  update(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Query() query: Flags,
    @Body() body: PipelinePatchDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PipelineView> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    const validateUsages = usagesAsked(query);
    const patch = pipelinePatchOf(body);
    return this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'UpdatePipeline',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          patch,
          validateUsages,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Delete(':objectType/:pipelineId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a pipeline' })
  @ApiQuery({ name: 'validateReferencesBeforeDelete', required: false, type: Boolean })
  @ApiQuery({ name: 'validateDealStageUsagesBeforeDelete', required: false, type: Boolean })
  @WireResponse(204)
  async archive(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Query() query: Flags,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    const validateUsages = usagesAsked(query);
    await this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'ArchivePipeline',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          validateUsages,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Get(':objectType/:pipelineId/audit')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('read') })
  @ApiOperation({ summary: 'The audit of a pipeline (newest first)' })
  @WireResponse(200, PIPELINE_AUDITS_SCHEMA, { description: 'CollectionResponsePublicAuditInfoNoPaging' })
  audit(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Token() token: AccessTokenClaims,
  ): { results: PipelineAuditView[] } {
    const type = this.typeOf(token, objectType, 'read');
    parsePathId(pipelineId, 'pipelineId');
    const results = this.queries.audits(token.hubId, type, pipelineId);
    if (results.length === 0 && !this.queries.get(token.hubId, type, pipelineId)) throw pipelineNotFound(pipelineId);
    return { results };
  }

  @Get(':objectType/:pipelineId/stages')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('read') })
  @ApiOperation({ summary: 'The stages of a pipeline' })
  @WireResponse(200, PIPELINE_STAGES_SCHEMA, { description: 'CollectionResponsePipelineStageNoPaging' })
  stages(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Token() token: AccessTokenClaims,
  ): { results: PipelineStageView[] } {
    const type = this.typeOf(token, objectType, 'read');
    const results = this.queries.stages(token.hubId, type, parsePathId(pipelineId, 'pipelineId'));
    if (!results) throw pipelineNotFound(pipelineId);
    return { results };
  }

  @Post(':objectType/:pipelineId/stages')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a stage to a pipeline' })
  @WireResponse(201, PIPELINE_STAGE_SCHEMA, { description: 'PipelineStage' })
  createStage(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Body() body: StageCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PipelineStageView> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    const input = stageInputOf(body);
    return this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'CreatePipelineStage',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          input,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Get(':objectType/:pipelineId/stages/:stageId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('read') })
  @ApiOperation({ summary: 'One stage of a pipeline' })
  @WireResponse(200, PIPELINE_STAGE_SCHEMA, { description: 'PipelineStage' })
  getStage(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Param('stageId') stageId: string,
    @Token() token: AccessTokenClaims,
  ): PipelineStageView {
    const type = this.typeOf(token, objectType, 'read');
    parsePathId(pipelineId, 'pipelineId');
    parsePathId(stageId, 'stageId');
    if (!this.queries.get(token.hubId, type, pipelineId)) throw pipelineNotFound(pipelineId);
    const view = this.queries.stage(token.hubId, type, pipelineId, stageId);
    if (!view) throw stageNotFound(pipelineId, stageId);
    return view;
  }

  @Put(':objectType/:pipelineId/stages/:stageId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @ApiOperation({ summary: 'Replace a stage' })
  @WireResponse(200, PIPELINE_STAGE_SCHEMA, { description: 'PipelineStage' })
  replaceStage(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Param('stageId') stageId: string,
    @Body() body: StageReplaceDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PipelineStageView> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    parsePathId(stageId, 'stageId');
    const input = stageInputOf(body);
    return this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'ReplacePipelineStage',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          stageId,
          input,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Patch(':objectType/:pipelineId/stages/:stageId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @ApiOperation({ summary: 'Update a stage’s label, order, metadata or archived flag' })
  @WireResponse(200, PIPELINE_STAGE_SCHEMA, { description: 'PipelineStage' })
  updateStage(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Param('stageId') stageId: string,
    @Body() body: StagePatchDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<PipelineStageView> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    parsePathId(stageId, 'stageId');
    const patch = stagePatchOf(body);
    return this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'UpdatePipelineStage',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          stageId,
          patch,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Delete(':objectType/:pipelineId/stages/:stageId')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('write') })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive a stage' })
  @ApiQuery({ name: 'validateReferencesBeforeDelete', required: false, type: Boolean })
  @WireResponse(204)
  async archiveStage(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Param('stageId') stageId: string,
    @Query() query: Flags,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    const type = this.typeOf(token, objectType, 'write');
    parsePathId(pipelineId, 'pipelineId');
    parsePathId(stageId, 'stageId');
    const validateUsages = usagesAsked(query);
    await this.commandBus.execute(
      new CrmPipelinesCommand(
        {
          type: 'ArchivePipelineStage',
          hubId: token.hubId,
          objectTypeId: type,
          pipelineId,
          stageId,
          validateUsages,
          userId: token.userId,
        },
        ctx,
      ),
    );
  }

  @Get(':objectType/:pipelineId/stages/:stageId/audit')
  @Authenticated({ by: 'bearer', scopes: pipelineScopes('read') })
  @ApiOperation({ summary: 'The audit of a stage (newest first)' })
  @WireResponse(200, PIPELINE_AUDITS_SCHEMA, { description: 'CollectionResponsePublicAuditInfoNoPaging' })
  stageAudit(
    @Param('objectType') objectType: string,
    @Param('pipelineId') pipelineId: string,
    @Param('stageId') stageId: string,
    @Token() token: AccessTokenClaims,
  ): { results: PipelineAuditView[] } {
    const type = this.typeOf(token, objectType, 'read');
    parsePathId(pipelineId, 'pipelineId');
    parsePathId(stageId, 'stageId');
    const results = this.queries.audits(token.hubId, type, pipelineId, stageId);
    if (results.length === 0 && !this.queries.stage(token.hubId, type, pipelineId, stageId)) {
      throw stageNotFound(pipelineId, stageId);
    }
    return { results };
  }

  /**
   * The path's object type (the guard has checked the token's scopes for it): deals, tickets, or one
   * of the account's active custom object types (by id, name or fully qualified name).
   */
  private typeOf(token: AccessTokenClaims, raw: string, _access: 'read' | 'write'): PipelineObjectTypeId {
    const standard = pipelineTypeOf(raw);
    if (standard) return standard;
    const resolved = this.limits.resolve(token.hubId, raw.slice(0, 100));
    if (!isPipelineType(resolved.objectTypeId)) throw unknownPipelineObjectType(raw.slice(0, 100));
    return resolved.objectTypeId;
  }
}
