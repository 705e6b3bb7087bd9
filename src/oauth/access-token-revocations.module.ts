import { Global, Module } from '@nestjs/common';
import { AccessTokenRevocations } from './application/access-token-revocations';
import { InstallClocks } from './application/install-clocks';
import { BearerTokenGuard } from './http/bearer-token.guard';

/**
 * The in-memory revocations are read by the bearer guard, which runs in every module that has
 * bearer-protected endpoints (cards, limits, ...): one instance, visible everywhere the OAuth
 * module is loaded. So are the installs' own clocks (InstallClocks), read by the same guard.
 */
@Global()
@Module({
  // The guard as a provider too: its instance registers the early (onRequest) token check.
  providers: [AccessTokenRevocations, InstallClocks, BearerTokenGuard],
  exports: [AccessTokenRevocations, InstallClocks, BearerTokenGuard],
})
export class AccessTokenRevocationsModule {}
