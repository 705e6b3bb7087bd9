import { Global, Module } from '@nestjs/common';
import { AccessTokenRevocations, AccessTokenVerifier } from './application/access-token-verifier';
import { InstallClocks } from './application/install-clocks';
import { BearerTokenGuard } from './http/bearer-token.guard';

/**
 * The in-memory revocations and the installs' own clocks (InstallClocks) are read by the one
 * access-token check (AccessTokenVerifier) the bearer guard uses, which runs in every module that has
 * bearer-protected endpoints (cards, limits, ...): one instance, visible everywhere the OAuth
 * module is loaded.
 */
@Global()
@Module({
  // The guard as a provider too: its instance registers the early (onRequest) token check.
  providers: [AccessTokenRevocations, InstallClocks, AccessTokenVerifier, BearerTokenGuard],
  exports: [AccessTokenRevocations, InstallClocks, AccessTokenVerifier, BearerTokenGuard],
})
export class AccessTokenRevocationsModule {}
