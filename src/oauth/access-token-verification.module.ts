import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../platform/config/config';
import { InstallClocks } from '../platform/clock';
import { signingKeysOf } from '../platform/security/signing-keys';
import { AccessTokenRevocations, AccessTokenVerifier } from './application/access-token-verifier';
import { SigningKeyring } from './domain/access-token';
import { BearerTokenGuard } from './http/bearer-token.guard';

/**
 * What the one access-token check (AccessTokenVerifier) reads — the signing keys, the in-memory
 * revocations, the installs' own clocks (InstallClocks) — and the bearer guard that asks it, which
 * runs in every module that has bearer-protected endpoints (cards, crm-schema, ...): one instance,
 * visible everywhere the OAuth module is loaded.
 */
@Global()
@Module({
  // The guard as a provider too: its instance registers the early (onRequest) token check.
  providers: [
    {
      provide: SigningKeyring,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SigningKeyring(signingKeysOf(config)),
    },
    AccessTokenRevocations,
    InstallClocks,
    AccessTokenVerifier,
    BearerTokenGuard,
  ],
  exports: [SigningKeyring, AccessTokenRevocations, InstallClocks, AccessTokenVerifier, BearerTokenGuard],
})
export class AccessTokenVerificationModule {}
