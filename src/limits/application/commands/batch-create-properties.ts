import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import type { CommandContext } from '../../../platform/events/envelope';
import type { HubSpotError } from '../../../platform/errors/hubspot-error';
import { LimitsEventType, type PropertyCreated } from '../../domain/limits-events';
import type { PropertyInput } from '../../domain/property-rules';
import { AccountLimitsStream } from '../account-limits-stream';
import { iso, type PropertyBatchView, type StandardErrorView } from '../limits.views';

/** POST /crm/v3/properties/{objectType}/batch/create: 201 when every input passed, else 207. */
export class BatchCreateProperties extends Command<{ status: 201 | 207; body: PropertyBatchView }> {
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

/** One refused input as HubSpot's StandardError; `context.inputIndex` and `propertyName` say which. */
export function standardError(error: HubSpotError, context: Record<string, string[]>): StandardErrorView {
  const details = error.extras.errors ?? [];
  const subCategory = error.extras.subCategory;
  return {
    status: 'error',
    category: error.category,
    message: error.message,
    context: { ...error.extras.context, ...context },
    errors:
      details.length > 0
        ? details
        : [{ message: error.message, ...(subCategory ? { subCategory } : {}), code: error.category }],
    links: {},
  };
}

/**
 * Decides every input on its own in one command on the account's stream (one append for the
 * ones that pass, however many there are) and answers the created properties as read back.
 */
@CommandHandler(BatchCreateProperties)
export class BatchCreatePropertiesHandler implements ICommandHandler<BatchCreateProperties> {
  constructor(
    private readonly accountLimits: AccountLimitsStream,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ hubId, userId, objectType, inputs, context }: BatchCreateProperties) {
    const startedAt = iso(this.clock.now());
    const { results, rejected } = await this.accountLimits.decideBatchCreate(
      hubId,
      userId,
      objectType,
      inputs,
      context,
      ({ properties }, events, rejected) => ({
        results: events
          .filter((e): e is PropertyCreated => e.type === LimitsEventType.PropertyCreated)
          .map((e) => properties.get(hubId, e.data.objectTypeId, e.data.property.name, false)),
        rejected,
      }),
    );
    const body: PropertyBatchView = { status: 'COMPLETE', results, startedAt, completedAt: iso(this.clock.now()) };
    if (rejected.length === 0) return { status: 201 as const, body };
    body.errors = rejected.map(({ index, error }) =>
      standardError(error, { inputIndex: [String(index)], propertyName: [String(inputs[index]?.name)] }),
    );
    body.numErrors = rejected.length;
    return { status: 207 as const, body };
  }
}
