import { HubSpotError } from '../../platform/errors/hubspot-error';
import type { SettingsDto, SubscriptionCreateDto } from './webhooks.dto';

/**
 * What the DTOs (webhooks.dto.ts) cannot say alone: the settings' concurrency in either shape,
 * and `active` required at 2026-09 only. Problems in HubSpot's VALIDATION_ERROR, named with `in`.
 */

/** `{targetUrl, throttling: {maxConcurrentRequests}}`, or the flat `{targetUrl, maxConcurrentRequests}`. */
export function settingsOf(body: SettingsDto): { targetUrl: string; maxConcurrentRequests: number } {
  const max = body.throttling?.maxConcurrentRequests ?? body.maxConcurrentRequests;
  if (max === undefined) {
    throw HubSpotError.validation(
      'Invalid input (details will vary based on the error): throttling.maxConcurrentRequests',
      [
        {
          message: 'throttling.maxConcurrentRequests is required',
          in: 'throttling.maxConcurrentRequests',
          code: 'REQUIRED',
        },
      ],
    );
  }
  return { targetUrl: body.targetUrl, maxConcurrentRequests: max };
}

export function subscriptionOf(
  body: SubscriptionCreateDto,
  activeRequired: boolean,
): { eventType: string; propertyName: string | null; objectTypeId: string | null; active: boolean } {
  if (body.active === undefined && activeRequired) {
    throw HubSpotError.validation('Invalid input (details will vary based on the error): active', [
      { message: 'active is required', in: 'active', code: 'REQUIRED' },
    ]);
  }
  return {
    eventType: body.eventType,
    propertyName: body.propertyName ? body.propertyName : null,
    objectTypeId: body.objectTypeId ? body.objectTypeId : null,
    // HubSpot: "Defaults to false."
    active: body.active === true,
  };
}
