import type { DynamicModule, Type } from '@nestjs/common';
import { CardsModule } from './cards/cards.module';
import { LimitsModule } from './limits/limits.module';
import { InstallPageModule } from './oauth/install-page/install-page.module';
import { OAuthModule } from './oauth/oauth.module';

export type FeatureModule = DynamicModule | Type<unknown>;

/** The HubSpot API areas, plugged into the app by main.ts and the end-to-end tests alike. */
export function featureModules(): FeatureModule[] {
  return [OAuthModule, InstallPageModule, CardsModule, LimitsModule];
}
