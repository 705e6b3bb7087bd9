import { Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { DirectoryModule } from '../../directory';
import { OAuthModule } from '../oauth.module';
import { InstallPageSession } from './install-page-session';
import { InstallPageController } from './install-page.controller';
import { InstallPageFlow } from './install-page.flow';
import { SignInThrottle } from './sign-in-throttle';
import { CodeIssuanceLimit } from './code-issuance-limit';
import { SessionGenerations } from './session-generations';

/**
 * Registers the page's session and CSRF plugins on Fastify before the app is ready, so they exist
 * only with the page, and their hooks run only on the page's routes.
 */
@Injectable()
class InstallPageSessionPlugins implements OnModuleInit {
  private readonly session = new InstallPageSession();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // In the constructor: Nest adds the routes after the providers exist and before onModuleInit.
    this.session.scopeToInstallPageRoutes(this.fastify());
  }

  async onModuleInit(): Promise<void> {
    await this.session.register(this.fastify(), this.config);
  }

  private fastify(): FastifyInstance {
    return this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
  }
}

/** The OAuth install (authorize) page: HTML sign-in, account chooser and consent, ending in ApproveInstall. */
@Module({
  imports: [OAuthModule, DirectoryModule],
  controllers: [InstallPageController],
  providers: [InstallPageSessionPlugins, SignInThrottle, CodeIssuanceLimit, SessionGenerations, InstallPageFlow],
})
export class InstallPageModule {}
