import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../../platform/events/envelope';
import type { LimitOverrides } from '../domain/limits-events';
import type { PropertyInput } from '../domain/property-rules';
import type { SchemaInput } from '../domain/schema-rules';
import type { AccountLimitsView } from './limits.queries';
import type { ObjectSchemaView, PropertyView } from './limits.views';

/**
 * The limits module's state changes, one class each, dispatched on the CommandBus. Every one
 * writes the account's own limits stream (handlers under ./handlers) and answers once the read
 * model holds its events. `userId` is the token's user (null when the admin API acts).
 */

/** POST /crm/v3/properties/{objectType}; fieldType calculation_equation makes a calculated property. */
export class CreateProperty extends Command<PropertyView> {
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

/** DELETE /crm/v3/properties/{objectType}/{propertyName}. */
export class ArchiveProperty extends Command<void> {
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

/** POST /crm/v3/schemas: the custom object type with its properties and associations. */
export class CreateCustomObjectSchema extends Command<ObjectSchemaView> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly schema: SchemaInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/schemas/{objectType}: frees its slot; the name stays reserved. */
export class ArchiveCustomObjectSchema extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** DELETE /crm/v3/schemas/{objectType}?archived=true: hard delete of an archived schema. */
export class PurgeCustomObjectSchema extends Command<void> {
  constructor(
    readonly hubId: number,
    readonly userId: number,
    readonly objectType: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** PUT /admin/v1/accounts/{hubId}/limits: a number sets a ceiling, null clears it, absent keeps it. */
export class OverrideAccountLimits extends Command<AccountLimitsView> {
  constructor(
    readonly hubId: number,
    readonly overrides: LimitOverrides,
    readonly context: CommandContext,
  ) {
    super();
  }
}
