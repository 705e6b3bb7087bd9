import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectoryQueries } from '../../directory/directory.queries';
import { PropertiesQueries, STANDARD_OBJECT_TYPES } from '../../crm-schema';
import { CrmRecordsQueries, RecordHistory } from '../../crm-records/crm-records.queries';
import { AssociationsQueries } from '../../crm-associations/crm-associations.queries';
import { consoleErrors } from '../domain/console-errors';
import { idParam, text, whole } from '../domain/form-input';
import { consolePage } from '../views/layout';
import { html, iso, table, withoutSecretLike } from '../views/pages';
import { ConsoleResponses, sendPage } from './console-responses';

const PAGE = 100;
/** The record types the console browses: HubSpot's standard objects (contacts, companies, deals, tickets, ...). */
const TYPES = STANDARD_OBJECT_TYPES.map((t) => ({ id: t.objectTypeId, label: t.pluralLabel }));

/** An account's records a page at a time (keyset by id), a record by a property's value, a record's property history. */
@ApiExcludeController()
@Controller('console/records')
export class ConsoleRecordsController {
  constructor(
    private readonly responses: ConsoleResponses,
    private readonly directory: DirectoryQueries,
    private readonly records: CrmRecordsQueries,
    private readonly history: RecordHistory,
    private readonly properties: PropertiesQueries,
    private readonly associations: AssociationsQueries,
  ) {}

  @Get()
  async browse(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, (csrfToken) => {
      const q = request.query;
      const hubId = whole(q, 'hubId', 1);
      const type = text(q, 'type') ?? '0-1';
      if (!TYPES.some((t) => t.id === type))
        throw consoleErrors.badInput(`type must be one of ${TYPES.map((t) => t.id).join(', ')}.`);
      const after = whole(q, 'after') ?? 0;
      const property = text(q, 'property');
      const value = text(q, 'value');
      const form = html`<form class="filters" method="get" action="/console/records">
        <div>
          <label for="hubId">Account (hubId)</label
          ><input id="hubId" type="text" name="hubId" value="${hubId ?? ''}" required />
        </div>
        <div>
          <label for="type">Type</label
          ><select id="type" name="type">
            ${TYPES.map((t) =>
              t.id === type
                ? html`<option value="${t.id}" selected>${t.label}</option>`
                : html`<option value="${t.id}">${t.label}</option>`,
            )}
          </select>
        </div>
        <div>
          <label for="property">Find by property</label
          ><input id="property" type="text" name="property" value="${property ?? ''}" placeholder="email" />
        </div>
        <div><label for="value">Value</label><input id="value" type="text" name="value" value="${value ?? ''}" /></div>
        <button type="submit">Show</button>
      </form>`;
      if (hubId === undefined) {
        return sendPage(
          reply,
          200,
          consolePage(
            'Records',
            html`${form}
              <p class="muted">Choose an account.</p>`,
            { csrfToken },
          ),
        );
      }
      if (!this.directory.getAccount(hubId)) throw consoleErrors.notFound(`Account ${hubId}`);
      let rows;
      let next: number | null = null;
      if (property !== undefined && value !== undefined) {
        const id = this.records.idBy(hubId, type, property, value, false);
        const found = id === null ? null : this.records.get(hubId, type, id, false);
        rows = found ? [found] : [];
      } else {
        const page = this.records.page(hubId, type, { archived: false, after, limit: PAGE });
        rows = page.results;
        next = page.next;
      }
      const body = html`${form}
      ${table(
        ['Id', 'Properties', 'Updated'],
        rows.map(
          (r) =>
            html`<tr>
              <td><a href="/console/records/${hubId}/${type}/${r.id}">${r.id}</a></td>
              <td>
                ${withoutSecretLike(
                  Object.entries(r.properties)
                    .filter(([k]) => !k.startsWith('hs_') && k !== 'createdate' && k !== 'lastmodifieddate')
                    .map(([k, v]) => `${k}: ${v}`)
                    .join(' · '),
                )}
              </td>
              <td>${r.updatedAt}</td>
            </tr>`,
        ),
        'No records.',
      )}
      ${next !== null ? html`<p class="pager"><a href="/console/records?hubId=${hubId}&type=${type}&after=${next}">Next records</a></p>` : html``}`;
      sendPage(reply, 200, consolePage('Records', body, { csrfToken }));
    });
  }

  @Get(':hubId/:type/:id')
  async record(
    @Param('hubId') rawHub: string,
    @Param('type') type: string,
    @Param('id') rawId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.responses.signedIn(request, reply, async (csrfToken) => {
      const hubId = idParam(rawHub, 'Account');
      const id = idParam(rawId, 'Record');
      if (!TYPES.some((t) => t.id === type)) throw consoleErrors.notFound(`Record type ${type.slice(0, 40)}`);
      if (!this.directory.getAccount(hubId)) throw consoleErrors.notFound(`Account ${hubId}`);
      const names = this.properties
        .list(hubId, type, { archived: false, dataSensitivity: 'non_sensitive' })
        .map((p) => p.name);
      const record =
        this.records.get(hubId, type, id, false, { properties: names }) ??
        this.records.get(hubId, type, id, true, { properties: names });
      if (!record) throw consoleErrors.notFound(`Record ${id} of type ${type} in account ${hubId}`);
      const history = await this.history.of(hubId, type, id, Object.keys(record.properties));
      // The first 100 associated records of each standard type (the records API pages further).
      const associated = TYPES.flatMap((to) =>
        this.associations.page(hubId, type, id, to.id, 0, 100).results.map((a) => ({ to, a })),
      );
      const body = html`<dl>
          <dt>Created</dt>
          <dd>${record.createdAt}</dd>
          <dt>Updated</dt>
          <dd>${record.updatedAt}</dd>
          <dt>Archived</dt>
          <dd>${record.archived ? `yes, ${record.archivedAt ?? ''}` : 'no'}</dd>
        </dl>
        <h2>Properties and their history</h2>
        ${table(
          ['Property', 'Value', 'History (newest first)'],
          Object.entries(record.properties).map(
            ([name, v]) =>
              html`<tr>
                <td><code>${name}</code></td>
                <td>${withoutSecretLike(v)}</td>
                <td>
                  ${(history[name] ?? []).map((h) => html`<div>${iso(Date.parse(h.timestamp))}: ${withoutSecretLike(h.value)} <span class="muted">(${h.sourceType}${h.sourceId ? ` ${h.sourceId}` : ''})</span></div>`)}
                </td>
              </tr>`,
          ),
        )}
        <h2>Associations</h2>
        ${table(
          ['Type', 'Record', 'Association types'],
          associated.map(
            ({ to, a }) =>
              html`<tr>
                <td>${to.label}</td>
                <td><a href="/console/records/${hubId}/${to.id}/${a.toObjectId}">${a.toObjectId}</a></td>
                <td>
                  ${a.associationTypes.map((t) => `${t.category} ${t.typeId}${t.label ? ` (${t.label})` : ''}`).join(', ')}
                </td>
              </tr>`,
          ),
          'No associations.',
        )}`;
      sendPage(reply, 200, consolePage(`Record ${id}`, body, { csrfToken }));
    });
  }
}
