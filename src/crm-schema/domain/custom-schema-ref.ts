import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { AccountLimitsState } from './account-limits.state';
import { resolveObjectType } from './object-types';

/**
 * The active custom object type a schemas path names (objectTypeId, fully qualified name or name).
 * A standard type, an archived or an unknown one is 404, as GET /crm/v3/schemas/{objectType} answers.
 */
export function activeCustomSchema(state: AccountLimitsState, raw: string, hubId: number): { objectTypeId: string } {
  const resolved = resolveObjectType(raw, hubId, Object.values(state.schemas));
  if (!resolved || resolved.kind !== 'custom') throw HubSpotError.notFound(`Object type ${raw} not found`);
  return { objectTypeId: resolved.objectTypeId };
}
