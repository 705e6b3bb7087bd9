import type { CommandBus } from '@nestjs/cqrs';
import type { AccountView, DirectoryQueries, UserView } from '../../src/directory/directory.queries';
import { AuthorizeRequestValidator } from '../../src/oauth/application/authorize-request.validator';
import { ApproveInstall } from '../../src/oauth/application/commands/approve-install';
import { decodeAuthorizationRequest } from '../../src/oauth/install-page/authorization-request';
import { InstallPageFlow } from '../../src/oauth/install-page/install-page.flow';
import { PageError } from '../../src/oauth/install-page/page-error';
import type { SignInThrottle } from '../../src/oauth/install-page/sign-in-throttle';
import { CodeIssuanceLimit } from '../../src/oauth/install-page/code-issuance-limit';
import { MemoryCounterStore } from '../../src/platform/rate-limit/memory-counter-store';
import { ManualClock } from '../support/manual-clock';

/** The install page's steps without HTTP: what the flow decides, given a directory and a session. */
describe('install page flow: the next step', () => {
  const app = {
    appId: 7,
    developerHubId: 1,
    name: 'Contacts Sync',
    clientId: 'client-a',
    clientSecretHash: 'not-used-here',
    redirectUrls: ['https://app.example.com/cb'],
    requiredScopes: ['oauth', 'crm.objects.contacts.read'],
    optionalScopes: ['crm.objects.custom.read', 'crm.lists.read'],
    installUrl: '',
    createdAt: 0,
  };
  const account = (hubId: number, tier: AccountView['tier']): AccountView => ({
    hubId,
    domain: `hub-${hubId}.example.com`,
    hublet: 'na1',
    tier,
    createdAt: 0,
  });
  const accounts = new Map([
    [101, account(101, 'enterprise')],
    [102, account(102, 'free')],
  ]);
  const user: UserView = { userId: 5, email: 'installer@example.com', hubIds: [101, 102], createdAt: 0 };
  const directory = {
    findAppByClientId: (clientId: string) => (clientId === app.clientId ? app : null),
    getAccount: (hubId: number) => accounts.get(hubId) ?? null,
    getUser: (userId: number) => (userId === user.userId ? user : null),
  } as unknown as DirectoryQueries;
  const execute = jest.fn(async (_command: unknown) => ({ code: 'c0de', grantedScopes: [] }));
  const flow = new InstallPageFlow(
    {} as SignInThrottle,
    new CodeIssuanceLimit(new ManualClock(), new MemoryCounterStore()),
    new AuthorizeRequestValidator(directory),
    directory,
    { execute } as unknown as CommandBus,
  );
  const query = {
    client_id: app.clientId,
    redirect_uri: 'https://app.example.com/cb',
    scope: 'oauth crm.objects.contacts.read',
    optional_scope: 'crm.objects.custom.read crm.lists.read',
    state: 'st&te',
  };
  const checked = () => flow.requestFromQuery(query);
  const form = (fields: Record<string, string> = {}) => {
    const step = flow.pageFor(checked(), undefined);
    if (step.kind !== 'sign-in') throw new Error(`expected sign-in, got ${step.kind}`);
    return { request: step.view.request, ...fields };
  };

  it('refuses an unknown client with an error page, before anything else', () => {
    expect(() => flow.requestFromQuery({ ...query, client_id: 'nope' })).toThrow(PageError);
  });

  it('asks for a sign-in when there is no session, carrying the request as it was sent', () => {
    const step = flow.pageFor(checked(), undefined, 101);
    expect(step).toMatchObject({ kind: 'sign-in', status: 200, view: { appName: 'Contacts Sync', portalId: 101 } });
    if (step.kind !== 'sign-in') return;
    expect(decodeAuthorizationRequest(step.view.request)).toMatchObject({ ok: true, request: { state: 'st&te' } });
  });

  it('lets a signed-in user choose among their accounts, saying so when the preselected one is not theirs', () => {
    expect(flow.pageFor(checked(), user.userId)).toMatchObject({
      kind: 'choose-account',
      view: { email: user.email, accounts: [{ hubId: 101 }, { hubId: 102 }], notice: undefined },
    });
    expect(flow.pageFor(checked(), user.userId, 999)).toMatchObject({
      kind: 'choose-account',
      view: { notice: expect.stringContaining('Hub ID 999') },
    });
  });

  it('asks for consent in a chosen account, dropping optional scopes its tier cannot use', () => {
    expect(flow.pageFor(checked(), user.userId, 102)).toMatchObject({
      kind: 'consent',
      view: {
        account: { hubId: 102, tier: 'free' },
        requiredScopes: ['oauth', 'crm.objects.contacts.read'],
        optionalScopes: ['crm.lists.read'],
        unavailableScopes: ['crm.objects.custom.read'],
        redirectOrigin: 'https://app.example.com',
      },
    });
  });

  it('moves between steps with 303s: a chosen account, a decision after the session ended', async () => {
    expect(flow.chooseAccount(form({ hub_id: '101' }))).toMatchObject({
      kind: 'next-step',
      location: expect.stringMatching(/^\/oauth\/101\/authorize\?client_id=client-a&/),
    });
    expect(await flow.decide(form({ hub_id: '101', decision: 'approve' }), undefined, 'corr')).toMatchObject({
      kind: 'next-step',
      location: expect.stringMatching(/^\/oauth\/101\/authorize\?/),
    });
  });

  it('returns to the app: access_denied on Cancel, a code from ApproveInstall on Connect', async () => {
    expect(await flow.decide(form({ hub_id: '101', decision: 'deny' }), user.userId, 'corr')).toEqual({
      kind: 'return-to-app',
      location: 'https://app.example.com/cb?error=access_denied&state=st%26te',
    });
    expect(execute).not.toHaveBeenCalled();
    expect(await flow.decide(form({ hub_id: '102', decision: 'approve' }), user.userId, 'corr')).toEqual({
      kind: 'return-to-app',
      location: 'https://app.example.com/cb?code=c0de&state=st%26te',
    });
    const command = execute.mock.calls[0]![0] as ApproveInstall;
    expect(command).toBeInstanceOf(ApproveInstall);
    expect(command.approval).toMatchObject({ hubId: 102, userId: 5, requestedOptionalScopes: ['crm.lists.read'] });
    expect(command.context).toEqual({ correlationId: 'corr', causationId: null, actor: 'user:5' });
  });

  it('refuses a decision for an account the user does not belong to', async () => {
    await expect(flow.decide(form({ hub_id: '999', decision: 'approve' }), user.userId, 'corr')).rejects.toMatchObject({
      status: 403,
    });
  });
});
