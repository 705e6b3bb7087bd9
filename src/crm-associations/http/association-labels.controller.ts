import { Controller, Delete, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountLimitsBusCommand, scopeFamilyOf } from '../../crm-schema';
import { type AccessTokenClaims, Token } from '../../oauth';
import type { CommandContext } from '../../platform/events/envelope';
import { type ApiVersion, versionedPaths } from '../../platform/http/api-versions';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';
import { IntParamPipe } from '../../platform/http/int-param.pipe';
import { Ctx } from '../../platform/http/request-context';
import { WireResponse } from '../../platform/http/wire-response';
import { AssociationBody } from './association-body';
import { AssociationLabelCreateDto, AssociationLabelUpdateDto } from './association.dto';
import { LABELS_SCHEMA } from './wire-schemas';

const LABELS_PATHS = {
  v3: ['crm/v4/associations', 'crm/associations/v4'],
  '2026-03': 'crm/associations/2026-03',
  '2026-09': 'crm/associations/2026-09',
} as const satisfies Partial<Record<ApiVersion, string | readonly string[]>>;

/** The write scopes of the from-object type's records (as the other associations writes take them). */
const labelScopes = (route: RouteFacts): readonly string[] => {
  const family = scopeFamilyOf(route.params.fromObjectType ?? '');
  if (family === 'tickets') return ['tickets', 'crm.objects.tickets.sensitive.write'];
  return [`crm.objects.${family}.write`, `crm.objects.${family}.sensitive.write.v2`];
};

/**
 * The account's association labels (`crm.associations.v4.schema.definitionsApi`): create (a label per
 * direction; `inverseLabel` pairs them), rename, archive. They are kept by the CRM schema module with
 * its association definitions (`limits.AssociationDefinition*` events, one label ceiling per pair);
 * this module's read model follows them, so `GET …/labels` lists them and associations take them.
 */
@ApiTags('CRM associations')
@Controller()
export class AssociationLabelsController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post(versionedPaths(LABELS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/labels`))
  @Authenticated({ by: 'bearer', scopes: labelScopes })
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an association label (USER_DEFINED), one type per direction' })
  @ApiBody({ type: AssociationLabelCreateDto })
  @WireResponse(200, LABELS_SCHEMA, { description: 'CollectionResponseAssociationSpecWithLabelNoPaging' })
  create(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(AssociationLabelCreateDto) body: AssociationLabelCreateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ) {
    const label = { fromObjectType: from, toObjectType: to, name: body.name, label: body.label };
    return this.commandBus.execute(
      new AccountLimitsBusCommand(
        token.hubId,
        token.userId,
        {
          type: 'CreateAssociationLabel',
          label: { ...label, ...(body.inverseLabel !== undefined ? { inverseLabel: body.inverseLabel } : {}) },
        },
        ctx,
      ),
    );
  }

  @Put(versionedPaths(LABELS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/labels`))
  @Authenticated({ by: 'bearer', scopes: labelScopes })
  @HttpCode(204)
  @ApiOperation({ summary: 'Rename an association label (and its inverse)' })
  @ApiBody({ type: AssociationLabelUpdateDto })
  @WireResponse(204)
  async update(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @AssociationBody(AssociationLabelUpdateDto) body: AssociationLabelUpdateDto,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    const change = {
      fromObjectType: from,
      toObjectType: to,
      associationTypeId: body.associationTypeId,
      label: body.label,
      ...(body.inverseLabel !== undefined ? { inverseLabel: body.inverseLabel } : {}),
    };
    await this.commandBus.execute(
      new AccountLimitsBusCommand(token.hubId, token.userId, { type: 'UpdateAssociationLabel', change }, ctx),
    );
  }

  @Delete(versionedPaths(LABELS_PATHS).map((p) => `${p}/:fromObjectType/:toObjectType/labels/:associationTypeId`))
  @Authenticated({ by: 'bearer', scopes: labelScopes })
  @HttpCode(204)
  @ApiOperation({ summary: 'Archive an association label (both directions); associations keep their other types' })
  @WireResponse(204)
  async archive(
    @Param('fromObjectType') from: string,
    @Param('toObjectType') to: string,
    @Param('associationTypeId', new IntParamPipe()) associationTypeId: number,
    @Token() token: AccessTokenClaims,
    @Ctx() ctx: CommandContext,
  ): Promise<void> {
    const ref = { fromObjectType: from, toObjectType: to, associationTypeId };
    await this.commandBus.execute(
      new AccountLimitsBusCommand(token.hubId, token.userId, { type: 'ArchiveAssociationLabel', ref }, ctx),
    );
  }
}
