import type { DynamicModule } from '@nestjs/common';

/** The HubSpot API areas, plugged into the app by main.ts and the end-to-end tests alike. */
export function featureModules(): Array<DynamicModule | (new () => unknown)> {
  return [];
}
