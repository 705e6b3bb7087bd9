import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Record ceilings are counted in millions (HubSpot's 15,000,000 per standard object type). */
const RecordOverride = () =>
  applyDecorators(
    Max(1_000_000_000),
    Min(0),
    IsInt(),
    IsOptional(),
    ApiPropertyOptional({ nullable: true, minimum: 0 }),
  );

/** Listed bottom-up, as the stacked decorators it replaces ran: validation messages keep their order. */
const Override = () =>
  applyDecorators(Max(1_000_000), Min(0), IsInt(), IsOptional(), ApiPropertyOptional({ nullable: true, minimum: 0 }));

/** PUT /admin/v1/accounts/{hubId}/limits: a number sets an override, null clears it, absent keeps it. */
export class LimitOverridesDto {
  @Override() calculatedProperties?: number | null;
  @Override() customObjectTypes?: number | null;
  @Override() customProperties?: number | null;
  @Override() associationLabels?: number | null;
  @RecordOverride() records?: number | null;
  @RecordOverride() customObjectRecords?: number | null;
}
