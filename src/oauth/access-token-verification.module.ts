import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../platform/config/config';
import { InstallClocks } from '../platform/clock';
import { signingKeysOf } from '../platform/security/signing-keys';
import { AccessTokenRevocations, AccessTokenVerifier } from './application/access-token-verifier';
import { SigningKeyring } from './domain/access-token';
import { AppTokenAuthentication } from './http/app-authentication';
import { BearerAuthentication } from './http/bearer-authentication';

/**
 * What the one access-token check (AccessTokenVerifier) reads — the signing keys, the in-memory
 * revocations, the installs' own clocks (InstallClocks) — and the `bearer` credential (and the `app` one: app tokens) of
 * `@Authenticated` that asks it, for every module that has bearer-protected endpoints (cards,
 * crm-schema, ...): one instance, visible everywhere the OAuth module is loaded.
 */
@Global()
@Module({
  // BearerAuthentication registers the `bearer` credential with the one authentication guard.
  providers: [
    {
      provide: SigningKeyring,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SigningKeyring(signingKeysOf(config)),
    },
    AccessTokenRevocations,
    InstallClocks,
    AccessTokenVerifier,
    BearerAuthentication,
    AppTokenAuthentication,
  ],
  exports: [SigningKeyring, AccessTokenRevocations, InstallClocks, AccessTokenVerifier],
})
export class AccessTokenVerificationModule {}
