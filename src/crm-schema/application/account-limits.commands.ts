import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../../platform/events/envelope';
import type { AssociationInput } from '../domain/association-definitions';
import type { AccountLimitsCommand } from '../domain/account-limits.decider';
import type { LimitOverrides } from '../domain/limits-events';
import type { PropertyGroupInput, PropertyGroupPatch, PropertyPatch } from '../domain/property-decisions';
import type { PropertyInput } from '../domain/property-rules';
import type { SchemaPatchInput } from '../domain/schema-patch';
import type { SchemaInput } from '../domain/schema-rules';
import type { AccountLimitsView } from './limits.queries';
import type { AssociationView, ObjectSchemaView, ObjectTypeDefinitionView } from './schema.views';
import type { PropertyBatchView, PropertyGroupView, PropertyView } from './property.views';

/**
 * The commands of one account's limits stream, as the CommandBus carries them. Each class is the
 * decider's command of the same name (`AccountLimitsCommand`, in domain/) as it is, with who asks
 * and the request's context; AccountLimitsHandler adds the facts (tier, ceilings, time) and hands
 * it to the decider. One class per state change, all handled by AccountLimitsHandler.
 */
type Shape<T extends AccountLimitsCommand['type']> = Omit<Extract<AccountLimitsCommand, { type: T }>, 'facts'>;

/** POST /crm/v3/properties/{objectType}; fieldType calculation_equation makes a calculated property. */
export class CreateProperty extends Command<PropertyView> implements Shape<'CreateProperty'> {
  readonly type = 'CreateProperty' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly property: PropertyInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** PATCH /crm/v3/properties/{objectType}/{propertyName}. */
export class UpdateProperty extends Command<PropertyView> implements Shape<'UpdateProperty'> {
  readonly type = 'UpdateProperty' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly patch: PropertyPatch,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/properties/{objectType}/{propertyName}: its slot is free again; twice is a 404. */
export class ArchiveProperty extends Command<void> implements Shape<'ArchiveProperty'> {
  readonly type = 'ArchiveProperty' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** POST /crm/v3/properties/{objectType}/batch/create: the inputs that pass in one append, the others reported. */
export class BatchCreateProperties extends Command<PropertyBatchView> implements Shape<'BatchCreateProperties'> {
  readonly type = 'BatchCreateProperties' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly inputs: PropertyInput[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** POST /crm/v3/properties/{objectType}/batch/archive: the active ones of the named properties, in one append. */
export class BatchArchiveProperties extends Command<void> implements Shape<'BatchArchiveProperties'> {
  readonly type = 'BatchArchiveProperties' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly names: string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** POST /crm/v3/properties/{objectType}/groups. */
export class CreatePropertyGroup extends Command<PropertyGroupView> implements Shape<'CreatePropertyGroup'> {
  readonly type = 'CreatePropertyGroup' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly group: PropertyGroupInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** PATCH /crm/v3/properties/{objectType}/groups/{groupName}. */
export class UpdatePropertyGroup extends Command<PropertyGroupView> implements Shape<'UpdatePropertyGroup'> {
  readonly type = 'UpdatePropertyGroup' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly patch: PropertyGroupPatch,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/properties/{objectType}/groups/{groupName}: only an empty group of the account's own. */
export class ArchivePropertyGroup extends Command<void> implements Shape<'ArchivePropertyGroup'> {
  readonly type = 'ArchivePropertyGroup' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** POST /crm/v3/schemas: the custom object type with its properties and associations, in one append. */
export class CreateCustomObjectSchema extends Command<ObjectSchemaView> implements Shape<'CreateCustomObjectSchema'> {
  readonly type = 'CreateCustomObjectSchema' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly schema: SchemaInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** PATCH /crm/v3/schemas/{objectType}. */
export class UpdateCustomObjectSchema
  extends Command<ObjectTypeDefinitionView>
  implements Shape<'UpdateCustomObjectSchema'>
{
  readonly type = 'UpdateCustomObjectSchema' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly patch: SchemaPatchInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/schemas/{objectType}: frees its slot and its properties' slots; the name stays reserved. */
export class ArchiveCustomObjectSchema extends Command<void> implements Shape<'ArchiveCustomObjectSchema'> {
  readonly type = 'ArchiveCustomObjectSchema' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/schemas/{objectType}?archived=true: an archived type gone for good, its name free. */
export class PurgeCustomObjectSchema extends Command<void> implements Shape<'PurgeCustomObjectSchema'> {
  readonly type = 'PurgeCustomObjectSchema' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** POST /crm/v3/schemas/{objectType}/associations: a named one counts against the pair's label ceiling. */
export class CreateAssociationDefinition
  extends Command<AssociationView>
  implements Shape<'CreateAssociationDefinition'>
{
  readonly type = 'CreateAssociationDefinition' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly association: AssociationInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/schemas/{objectType}/associations/{associationIdentifier}: frees a label slot of its pair. */
export class DeleteAssociationDefinition extends Command<void> implements Shape<'DeleteAssociationDefinition'> {
  readonly type = 'DeleteAssociationDefinition' as const;
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly associationIdentifier: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** PUT /admin/v1/accounts/{hubId}/limits: a number sets a ceiling, null clears it, absent keeps it. */
export class OverrideAccountLimits extends Command<AccountLimitsView> implements Shape<'OverrideAccountLimits'> {
  readonly type = 'OverrideAccountLimits' as const;
  readonly userId = null;
  constructor(
    readonly hubId: number,
    readonly overrides: LimitOverrides,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Every command AccountLimitsHandler is registered for. */
export const ACCOUNT_LIMITS_COMMANDS = [
  CreateProperty,
  UpdateProperty,
  ArchiveProperty,
  BatchCreateProperties,
  BatchArchiveProperties,
  CreatePropertyGroup,
  UpdatePropertyGroup,
  ArchivePropertyGroup,
  CreateCustomObjectSchema,
  UpdateCustomObjectSchema,
  ArchiveCustomObjectSchema,
  PurgeCustomObjectSchema,
  CreateAssociationDefinition,
  DeleteAssociationDefinition,
  OverrideAccountLimits,
] as const;

export type AccountLimitsBusCommand = InstanceType<(typeof ACCOUNT_LIMITS_COMMANDS)[number]>;
