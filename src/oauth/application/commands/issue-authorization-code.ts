import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EventStreams } from '../../../platform/commands/event-streams';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/config';
import type { CommandContext } from '../../../platform/events/envelope';
import { sha256Hex } from '../../../platform/security/constant-time';
import { authorizationCodeDecider, type CodeGrant } from '../../domain/authorization-code.decider';
import { authorizationCodeStream } from '../../domain/oauth-events';
import { newAuthorizationCode } from '../token-material';

export interface IssuedAuthorizationCode {
  /** The plain code: handed out once, stored only as its hash. */
  code: string;
  /** Global position of AuthorizationCodeIssued. */
  position: number;
}

/** A fresh authorization code bound to client, redirect URI, account, user, install, scopes and PKCE challenge. */
export class IssueAuthorizationCode extends Command<IssuedAuthorizationCode> {
  constructor(
    readonly grant: Omit<CodeGrant, 'codeHash' | 'expiresAt'>,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(IssueAuthorizationCode)
export class IssueAuthorizationCodeHandler implements ICommandHandler<IssueAuthorizationCode> {
  private readonly codes;

  constructor(
    streams: EventStreams,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.codes = streams.forDecider(authorizationCodeDecider);
  }

  async execute({ grant, context }: IssueAuthorizationCode): Promise<IssuedAuthorizationCode> {
    const code = newAuthorizationCode(grant.hublet);
    const codeHash = sha256Hex(code);
    const { position } = await this.codes.handle(
      authorizationCodeStream(codeHash),
      {
        kind: 'IssueAuthorizationCode',
        grant: { codeHash, ...grant, expiresAt: grant.issuedAt + this.config.authCodeTtlSeconds * 1000 },
      },
      context,
    );
    return { code, position };
  }
}
