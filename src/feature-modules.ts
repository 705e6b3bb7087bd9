import type { DynamicModule, Type } from '@nestjs/common';
import { CardsModule } from './cards/index';
import { LimitsModule } from './limits/index';
import { InstallPageModule } from './oauth/index';
import { OAuthModule } from './oauth/index';

export type FeatureModule = DynamicModule | Type<unknown>;

/** The HubSpot API areas, plugged into the app by main.ts and the end-to-end tests alike. */
export function featureModules(): FeatureModule[] {
  return [OAuthModule, InstallPageModule, CardsModule, LimitsModule];
}
