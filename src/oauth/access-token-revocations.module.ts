import { Global, Module } from '@nestjs/common';
import { AccessTokenRevocations } from './application/access-token-revocations';

/**
 * The in-memory revocations are read by the bearer guard, which runs in every module that has
 * bearer-protected endpoints (cards, limits, ...): one instance, visible everywhere the OAuth
 * module is loaded.
 */
@Global()
@Module({ providers: [AccessTokenRevocations], exports: [AccessTokenRevocations] })
export class AccessTokenRevocationsModule {}
