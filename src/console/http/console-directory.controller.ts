import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectoryQueries } from '../../directory/directory.queries';
import {
  AdvanceInstallClock,
  ExpireInstallAccessTokens,
  MAX_INSTALL_CLOCK_OFFSET_SECONDS,
  ResetInstallClock,
  Uninstall,
} from '../../oauth';
import { InstallQueries, type InstallView, OutstandingTokensQueries } from '../../oauth/oauth.queries';
import { DeliveryRecordBusCommand } from '../../app-webhooks';
import { DeliveryThread, type DeliveryStatus } from '../../app-webhooks/app-webhooks.queries';
import { CLOCK, type Clock, InstallClocks } from '../../platform/clock';
import type { CommandContext } from '../../platform/events/envelope';
import { consoleErrors } from '../domain/console-errors';
import { idParam, text, whole } from '../domain/form-input';
import { actionForm, html, iso, table, withoutSecretLike } from '../views/pages';
import { consolePage } from '../views/layout';
import { ConsoleResponses, seeOther, sendPage } from './console-responses';

const PAGE = 100;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'retrying', 'failed', 'abandoned'];
/** Headers that carry a signature of the app's secret: never shown. */
const SIGNATURE_HEADER = /signature/i;

/** Accounts, users, apps and installs, with the admin API's install actions and webhook redelivery as forms. */
@ApiExcludeController()
@Controller('console')
export class ConsoleDirectoryController {
  constructor(
    private readonly responses: ConsoleResponses,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly outstanding: OutstandingTokensQueries,
    private readonly webhooks: DeliveryThread,
    private readonly clocks: InstallClocks,
    private readonly commandBus: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('accounts')
  async accounts(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, (csrfToken) => {
      const after = whole(request.query, 'after') ?? 0;
      const rows = this.directory.listAccounts(after, PAGE + 1);
      const page = rows.slice(0, PAGE);
      const body = html`${table(
        ['Hub id', 'Domain', 'Tier', 'Created'],
        page.map(
          (a) =>
            html`<tr>
              <td><a href="/console/accounts/${a.hubId}">${a.hubId}</a></td>
              <td>${a.domain}</td>
              <td>${a.tier}</td>
              <td>${iso(a.createdAt)}</td>
            </tr>`,
        ),
        'No accounts yet.',
      )}
      ${rows.length > PAGE ? html`<p><a href="/console/accounts?after=${page.at(-1)!.hubId}">Next accounts</a></p>` : html``}`;
      sendPage(reply, 200, consolePage('Accounts', body, { csrfToken }));
    });
  }

  @Get('accounts/:hubId')
  async account(
    @Param('hubId') raw: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.responses.signedIn(request, reply, (csrfToken) => {
      const hubId = idParam(raw, 'Account');
      const account = this.directory.getAccountWithSettings(hubId);
      if (!account) throw consoleErrors.notFound(`Account ${hubId}`);
      const users = this.directory.listUsers(0, 1000).filter((u) => u.hubIds.includes(hubId));
      const installs = this.installs.listInstallsOfAccount(hubId, 0, PAGE);
      const body = html`<dl>
          <dt>Domain</dt>
          <dd>${account.domain}</dd>
          <dt>Tier</dt>
          <dd>${account.tier}</dd>
          <dt>Hublet</dt>
          <dd>${account.hublet}</dd>
          <dt>Account type</dt>
          <dd>${account.accountType}</dd>
          <dt>Time zone</dt>
          <dd>${account.timeZone}</dd>
          <dt>Currency</dt>
          <dd>${account.companyCurrency}</dd>
          <dt>Created</dt>
          <dd>${iso(account.createdAt)}</dd>
        </dl>
        <p>
          <a href="/console/events?hubId=${hubId}">Its events</a> ·
          <a href="/console/records?hubId=${hubId}">Its records</a>
        </p>
        <h2>Users</h2>
        ${table(
          ['User id', 'E-mail', 'Created'],
          users.map(
            (u) =>
              html`<tr>
                <td>${u.userId}</td>
                <td>${u.email}</td>
                <td>${iso(u.createdAt)}</td>
              </tr>`,
          ),
          'No users.',
        )}
        <h2>Installs</h2>
        ${this.installTable(installs, csrfToken)}`;
      sendPage(reply, 200, consolePage(`Account ${hubId}`, body, { csrfToken }));
    });
  }

  @Get('apps')
  async apps(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, (csrfToken) => {
      const after = whole(request.query, 'after') ?? 0;
      const rows = this.directory.listApps(after, PAGE + 1);
      const page = rows.slice(0, PAGE);
      const body = html`${table(
        ['App id', 'Name', 'Developer account', 'Created'],
        page.map(
          (a) =>
            html`<tr>
              <td><a href="/console/apps/${a.appId}">${a.appId}</a></td>
              <td>${a.name}</td>
              <td>${a.developerHubId}</td>
              <td>${iso(a.createdAt)}</td>
            </tr>`,
        ),
        'No apps yet.',
      )}
      ${rows.length > PAGE ? html`<p><a href="/console/apps?after=${page.at(-1)!.appId}">Next apps</a></p>` : html``}`;
      sendPage(reply, 200, consolePage('Apps', body, { csrfToken }));
    });
  }

  @Get('apps/:appId')
  async app(@Param('appId') raw: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, async (csrfToken) => {
      const appId = idParam(raw, 'App');
      const app = this.directory.getApp(appId);
      if (!app) throw consoleErrors.notFound(`App ${appId}`);
      const status = text(request.query, 'status');
      if (status !== undefined && !STATUSES.includes(status as DeliveryStatus)) {
        throw consoleErrors.badInput(`status must be one of ${STATUSES.join(', ')}.`);
      }
      const after = whole(request.query, 'after');
      const deliveries = await this.webhooks.deliveries(appId, {
        ...(status ? { status: status as DeliveryStatus } : {}),
        ...(after !== undefined ? { after } : {}),
        limit: 20,
      });
      const list = (items: string[]) =>
        items.length === 0
          ? html`<span class="muted">none</span>`
          : html`<ul class="scopes">
              ${items.map((s) => html`<li><code>${s}</code></li>`)}
            </ul>`;
      const body = html`<dl>
          <dt>Name</dt>
          <dd>${app.name}</dd>
          <dt>Client id</dt>
          <dd><code>${app.clientId}</code></dd>
          <dt>Developer account</dt>
          <dd><a href="/console/accounts/${app.developerHubId}">${app.developerHubId}</a></dd>
          <dt>Redirect URLs</dt>
          <dd>${list(app.redirectUrls)}</dd>
          <dt>Required scopes</dt>
          <dd>${list(app.requiredScopes)}</dd>
          <dt>Optional scopes</dt>
          <dd>${list(app.optionalScopes)}</dd>
        </dl>
        <p><a href="/console/events?appId=${appId}">Its events</a></p>
        <h2>Installs</h2>
        ${this.installTable(this.installs.listInstallsOfApp(appId, 0, PAGE), csrfToken)}
        <h2>Webhook deliveries</h2>
        <form class="filters" method="get" action="/console/apps/${appId}">
          <div>
            <label for="status">Status</label>
            <select id="status" name="status">
              <option value="">any</option>
              ${STATUSES.map((s) => (s === status ? html`<option selected>${s}</option>` : html`<option>${s}</option>`))}
            </select>
          </div>
          <button type="submit">Filter</button>
        </form>
        ${table(
          ['Delivery', 'Account', 'Subscription', 'Status', 'Attempts', 'Next retry', 'Attempt log', ''],
          deliveries.results.map(
            (d) =>
              html`<tr>
                <td>${d.id}</td>
                <td>${d.portalId}</td>
                <td>${d.subscriptionType}</td>
                <td>${d.status}</td>
                <td>${d.attempts}</td>
                <td>${iso(d.nextAttemptAt)}</td>
                <td>
                  ${d.attemptLog.map(
                    (a) =>
                      html`<details>
                        <summary>
                          #${a.attemptNumber} ${iso(a.sentAt)}:
                          ${a.response.statusCode ?? a.response.error ?? 'no answer'}
                        </summary>
                        <pre>
${withoutSecretLike(
                            JSON.stringify(
                              {
                                url: a.url,
                                headers: Object.fromEntries(
                                  Object.entries(a.request.headers).map(([k, v]) => [
                                    k,
                                    SIGNATURE_HEADER.test(k) ? '[withheld]' : v,
                                  ]),
                                ),
                                body: a.request.body,
                                response: a.response,
                              },
                              null,
                              1,
                            ),
                          )}</pre>
                      </details>`,
                  )}
                </td>
                <td>${actionForm(`/console/apps/${appId}/deliveries/${d.id}/redeliver`, 'Redeliver', csrfToken)}</td>
              </tr>`,
          ),
          'No deliveries.',
        )}
        ${deliveries.next !== null ? html`<p><a href="/console/apps/${appId}?${status ? `status=${status}&` : ''}after=${deliveries.next}">Next deliveries</a></p>` : html``}`;
      sendPage(reply, 200, consolePage(app.name, body, { csrfToken }));
    });
  }

  @Post('installs/:appId/:hubId/:action')
  async installAction(
    @Param('appId') rawApp: string,
    @Param('hubId') rawHub: string,
    @Param('action') action: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      const appId = idParam(rawApp, 'App');
      const hubId = idParam(rawHub, 'Account');
      if (!this.installs.getInstall(appId, hubId))
        throw consoleErrors.notFound(`The install of app ${appId} in ${hubId}`);
      const ctx = this.context(request);
      switch (action) {
        case 'expire-access-tokens':
          await this.commandBus.execute(new ExpireInstallAccessTokens(appId, hubId, ctx));
          break;
        case 'advance-clock': {
          const seconds = whole(request.body, 'advanceSeconds', 0, MAX_INSTALL_CLOCK_OFFSET_SECONDS);
          if (seconds === undefined) throw consoleErrors.badInput('advanceSeconds is required.');
          await this.commandBus.execute(new AdvanceInstallClock(appId, hubId, seconds, ctx));
          break;
        }
        case 'reset-clock':
          await this.commandBus.execute(new ResetInstallClock(appId, hubId, ctx));
          break;
        case 'uninstall':
          await this.commandBus.execute(new Uninstall(appId, hubId, ctx));
          break;
        default:
          throw consoleErrors.notFound(`The action ${action.slice(0, 40)}`);
      }
      seeOther(reply, `/console/accounts/${hubId}`);
    });
  }

  @Post('apps/:appId/deliveries/:id/redeliver')
  async redeliver(
    @Param('appId') rawApp: string,
    @Param('id') rawId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      const appId = idParam(rawApp, 'App');
      const id = idParam(rawId, 'Delivery');
      const view = await this.webhooks.delivery(appId, String(id));
      if (!view) throw consoleErrors.notFound(`Webhook delivery ${id} of app ${appId}`);
      await this.commandBus.execute(
        new DeliveryRecordBusCommand(
          { type: 'RequestRedelivery', appId, hubId: view.portalId, eventId: view.id },
          this.context(request),
        ),
      );
      seeOther(reply, `/console/apps/${appId}`);
    });
  }

  private installTable(installs: InstallView[], csrfToken: string) {
    return table(
      ['App', 'Account', 'Scopes', 'Installed', 'Clock offset', 'Tokens outstanding', 'Actions'],
      installs.map((i) => {
        const base = `/console/installs/${i.appId}/${i.hubId}`;
        const offsetSeconds = Math.round((this.clocks.nowFor(i.appId, i.hubId) - this.clock.now()) / 1000);
        // Counts and the latest expiry only: never a token or its hash.
        const tokens = this.outstanding.of(i.appId, i.hubId);
        return html`<tr>
          <td><a href="/console/apps/${i.appId}">${i.appId}</a></td>
          <td><a href="/console/accounts/${i.hubId}">${i.hubId}</a></td>
          <td>${i.scopes.join(' ')}</td>
          <td>${iso(i.installedAt)}</td>
          <td>${offsetSeconds} s</td>
          <td class="tokens">
            ${tokens.accessTokens} access, ${tokens.refreshTokens} refresh
            ${
              tokens.latestAccessTokenExpiresAt === null
                ? html``
                : html`<div class="muted">latest expires ${iso(tokens.latestAccessTokenExpiresAt)}</div>`
            }
          </td>
          <td>
            ${actionForm(`${base}/expire-access-tokens`, 'Expire access tokens now', csrfToken)}
            ${actionForm(
              `${base}/advance-clock`,
              'Move clock',
              csrfToken,
              html`<label class="muted" for="adv-${i.appId}-${i.hubId}">Seconds</label
                ><input
                  id="adv-${i.appId}-${i.hubId}"
                  type="number"
                  name="advanceSeconds"
                  min="0"
                  max="${MAX_INSTALL_CLOCK_OFFSET_SECONDS}"
                  value="3600"
                  required
                />`,
            )}
            ${actionForm(`${base}/reset-clock`, 'Reset clock', csrfToken)}
            ${actionForm(`${base}/uninstall`, 'Uninstall', csrfToken)}
          </td>
        </tr>`;
      }),
      'No installs.',
    );
  }

  /** The actions are the admin's, under this request's correlation id, as the admin API's are. */
  private context(request: FastifyRequest): CommandContext {
    return { correlationId: String(request.id), causationId: null, actor: 'admin' };
  }
}
