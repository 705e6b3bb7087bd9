import { Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { DirectoryModule } from '../../directory';
import { OAuthModule } from '../oauth.module';
import { registerInstallPageSession } from './install-page-session';
import { InstallPageController } from './install-page.controller';
import { InstallPageFlow } from './install-page.flow';
import { SignInThrottle } from './sign-in-throttle';
import { CodeIssuanceLimit } from './code-issuance-limit';
import { SessionGenerations } from './session-generations';

/** Registers the page's session and CSRF plugins on Fastify before the app is ready, so they exist only with the page. */
@Injectable()
class InstallPageSessionPlugins implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await registerInstallPageSession(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.config);
  }
}

/** The OAuth install (authorize) page: HTML sign-in, account chooser and consent, ending in ApproveInstall. */
@Module({
  imports: [OAuthModule, DirectoryModule],
  controllers: [InstallPageController],
  providers: [InstallPageSessionPlugins, SignInThrottle, CodeIssuanceLimit, SessionGenerations, InstallPageFlow],
})
export class InstallPageModule {}
