import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CardsQueries } from '../../cards/cards.queries';
import { MAX_SEARCH_LAG_MS, SearchLags, SetSearchLag } from '../../crm-search';
import { DirectoryQueries } from '../../directory/directory.queries';
import { InstallQueries } from '../../oauth/oauth.queries';
import { ClearAppFaults, ClearFault, FaultRegistry, parseFaultSpec, SetFault } from '../../test-controls';
import { CLOCK, type Clock, InstallClocks } from '../../platform/clock';
import type { CommandContext } from '../../platform/events/envelope';
import { consoleErrors } from '../domain/console-errors';
import { idParam, text, whole } from '../domain/form-input';
import { actionForm, consolePage } from '../views/layout';
import { html, iso, table } from '../views/pages';
import { ConsoleResponses, seeOther, sendPage } from './console-responses';

/** Apps and accounts the page covers: the first of each (the admin API pages further). */
const SHOWN = 100;

/** The test controls: faults with their injected counts (set and clear), install clocks, search lag, card migrations. */
@ApiExcludeController()
@Controller('console/controls')
export class ConsoleControlsController {
  constructor(
    private readonly responses: ConsoleResponses,
    private readonly directory: DirectoryQueries,
    private readonly installs: InstallQueries,
    private readonly faults: FaultRegistry,
    private readonly lags: SearchLags,
    private readonly cards: CardsQueries,
    private readonly clocks: InstallClocks,
    private readonly commandBus: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  async controls(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, (csrfToken) => {
      const apps = this.directory.listApps(0, SHOWN);
      const accounts = this.directory.listAccounts(0, SHOWN);
      const faultRows = apps.flatMap((app) =>
        this.faults.list(app.appId).map(
          (f) =>
            html`<tr>
              <td><a href="/console/apps/${app.appId}">${app.appId}</a></td>
              <td><code>${f.faultId}</code></td>
              <td>
                <pre>
${JSON.stringify({ match: f.match, response: f.response, times: f.times, ratio: f.ratio, seconds: f.seconds }, null, 1)}</pre>
              </td>
              <td>${f.injected}</td>
              <td>${f.active ? 'yes' : 'no'}</td>
              <td>
                ${actionForm(`/console/controls/faults/${app.appId}/clear`, 'Clear', csrfToken, html``, { faultId: f.faultId })}
              </td>
            </tr>`,
        ),
      );
      const clockRows = apps.flatMap((app) =>
        this.installs
          .listInstallsOfApp(app.appId, 0, SHOWN)
          .map((i) => ({ i, offset: Math.round((this.clocks.nowFor(i.appId, i.hubId) - this.clock.now()) / 1000) }))
          .filter(({ offset }) => offset !== 0)
          .map(
            ({ i, offset }) =>
              html`<tr>
                <td>${i.appId}</td>
                <td><a href="/console/accounts/${i.hubId}">${i.hubId}</a></td>
                <td>${offset} s</td>
                <td>${iso(this.clocks.nowFor(i.appId, i.hubId))}</td>
              </tr>`,
          ),
      );
      const migrations = apps.flatMap((app) =>
        this.cards.migrationsOfApp(app.appId).map(
          (m) =>
            html`<tr>
              <td>${app.appId}</td>
              <td>${m.legacyCardId}</td>
              <td>${m.appCardId}</td>
              <td>${m.migratedPortalCount} of ${m.totalPortalCount} (${m.remainingPortalCount} left)</td>
              <td>${iso(m.startedAt)}</td>
              <td>${iso(m.endedAt)}</td>
            </tr>`,
        ),
      );
      const appOptions = apps.map((a) => html`<option value="${a.appId}">${a.appId} ${a.name}</option>`);
      const body = html`<h2>Faults</h2>
        ${table(['App', 'Fault', 'Spec', 'Injected', 'Active', ''], faultRows, 'No faults set.')}
        <form method="post" action="/console/controls/faults">
          <input type="hidden" name="_csrf" value="${csrfToken}" />
          <label for="fault-app">App</label
          ><select id="fault-app" name="appId">
            ${appOptions}
          </select>
          <label for="fault-spec">Fault (JSON, as POST /admin/v1/apps/{appId}/faults takes it)</label>
          <textarea id="fault-spec" name="spec" rows="4" style="width:100%;font:inherit">
{"match": {"path": "/crm/v3/*"}, "response": {"kind": "error", "status": 503}, "times": 2}</textarea>
          <div class="actions"><button type="submit">Set fault</button></div>
        </form>
        <form class="inline" method="post" action="/console/controls/faults/clear-all">
          <input type="hidden" name="_csrf" value="${csrfToken}" />
          <label for="clear-app" class="muted">App</label
          ><select id="clear-app" name="appId">
            ${appOptions}
          </select>
          <button type="submit">Clear all its faults</button>
        </form>
        <h2>Install clocks</h2>
        <p class="muted">Installs whose clock is moved; move or reset a clock from its account’s page.</p>
        ${table(['App', 'Account', 'Offset', 'Its time now'], clockRows, 'Every install runs on real time.')}
        <h2>Search lag</h2>
        ${table(
          ['Account', 'Search lag', ''],
          accounts.map(
            (a) =>
              html`<tr>
                <td><a href="/console/accounts/${a.hubId}">${a.hubId}</a></td>
                <td>${this.lags.of(a.hubId)} ms</td>
                <td>
                  ${actionForm(
                    `/console/controls/search-lag/${a.hubId}`,
                    'Set',
                    csrfToken,
                    html`<label class="muted" for="lag-${a.hubId}">ms</label
                      ><input
                        id="lag-${a.hubId}"
                        type="number"
                        name="searchLagMs"
                        min="0"
                        max="${MAX_SEARCH_LAG_MS}"
                        value="${this.lags.of(a.hubId)}"
                        required
                      />`,
                  )}
                </td>
              </tr>`,
          ),
          'No accounts.',
        )}
        <h2>Card migrations</h2>
        ${table(['App', 'Legacy card', 'App card', 'Progress', 'Started', 'Ended'], migrations, 'No migrations.')}`;
      sendPage(reply, 200, consolePage('Test controls', body, { csrfToken }));
    });
  }

  @Post('faults')
  async setFault(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      const appId = this.app(request);
      let spec: unknown;
      try {
        spec = JSON.parse(this.specText(request));
      } catch {
        throw consoleErrors.badInput('The fault must be JSON.');
      }
      const parsed = parseFaultSpec(spec);
      if (!parsed.ok)
        throw consoleErrors.badInput(`Invalid fault: ${parsed.errors.map((e) => `${e.in}: ${e.message}`).join('; ')}`);
      await this.commandBus.execute(new SetFault(appId, parsed.spec, this.context(request)));
      seeOther(reply, '/console/controls');
    });
  }

  @Post('faults/:appId/clear')
  async clearFault(
    @Param('appId') raw: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      const appId = idParam(raw, 'App');
      const faultId = text(request.body, 'faultId');
      if (faultId === undefined) throw consoleErrors.badInput('faultId is required.');
      if (!this.faults.get(appId, faultId)) throw consoleErrors.notFound(`Fault ${faultId}`);
      await this.commandBus.execute(new ClearFault(appId, faultId, this.context(request)));
      seeOther(reply, '/console/controls');
    });
  }

  @Post('faults/clear-all')
  async clearAll(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      await this.commandBus.execute(new ClearAppFaults(this.app(request), this.context(request)));
      seeOther(reply, '/console/controls');
    });
  }

  @Post('search-lag/:hubId')
  async setSearchLag(
    @Param('hubId') raw: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.responses.signedIn(request, reply, async () => {
      const hubId = idParam(raw, 'Account');
      if (!this.directory.getAccount(hubId)) throw consoleErrors.notFound(`Account ${hubId}`);
      const lagMs = whole(request.body, 'searchLagMs', 0, MAX_SEARCH_LAG_MS);
      if (lagMs === undefined) throw consoleErrors.badInput('searchLagMs is required.');
      await this.commandBus.execute(new SetSearchLag(hubId, lagMs, this.context(request)));
      seeOther(reply, '/console/controls');
    });
  }

  private app(request: FastifyRequest): number {
    const appId = whole(request.body, 'appId', 1);
    if (appId === undefined) throw consoleErrors.badInput('appId is required.');
    if (!this.directory.getApp(appId)) throw consoleErrors.notFound(`App ${appId}`);
    return appId;
  }

  /** The fault's JSON: up to 4,000 characters (longer than the console's other fields). */
  private specText(request: FastifyRequest): string {
    const raw = (request.body as Record<string, unknown> | undefined)?.spec;
    if (typeof raw !== 'string' || raw.length > 4000)
      throw consoleErrors.badInput('spec must be one JSON text of at most 4,000 characters.');
    return raw;
  }

  private context(request: FastifyRequest): CommandContext {
    return { correlationId: String(request.id), causationId: null, actor: 'admin' };
  }
}
