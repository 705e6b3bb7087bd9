import { Global, Module } from '@nestjs/common';
import { AccessTokenRevocations } from './application/access-token-verifier';
import { AccessTokenVerifier } from './application/access-token-verifier';
import { BearerTokenGuard } from './http/bearer-token.guard';

/**
 * The in-memory revocations are read by the one access-token check (AccessTokenVerifier) the bearer guard uses, which runs in every module that has
 * bearer-protected endpoints (cards, limits, ...): one instance, visible everywhere the OAuth
 * module is loaded.
 */
@Global()
@Module({
  // The guard as a provider too: its instance registers the early (onRequest) token check.
  providers: [AccessTokenRevocations, AccessTokenVerifier, BearerTokenGuard],
  exports: [AccessTokenRevocations, AccessTokenVerifier, BearerTokenGuard],
})
export class AccessTokenRevocationsModule {}
