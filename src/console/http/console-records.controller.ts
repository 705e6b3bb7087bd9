import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectoryQueries } from '../../directory/directory.queries';
import { LimitsQueries, PropertiesQueries, STANDARD_OBJECT_TYPES } from '../../crm-schema';
import {
  CrmSearchQueries,
  SEARCH_OPERATORS,
  searchRequestFrom,
  type SearchResultView,
  type SearchOperator,
  type SearchRequestInput,
} from '../../crm-search/crm-search.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { CrmRecordsQueries, RecordHistory } from '../../crm-records/crm-records.queries';
import { AssociationsQueries } from '../../crm-associations/crm-associations.queries';
import { consoleErrors } from '../domain/console-errors';
import { idParam, text, whole } from '../domain/form-input';
import { consolePage } from '../views/layout';
import { html, iso, table, withoutSecretLike } from '../views/pages';
import { ConsoleResponses, sendPage } from './console-responses';

/** The types offered before an account is chosen: HubSpot's standard objects. */
const STANDARD_TYPES = STANDARD_OBJECT_TYPES;
const PAGE = 100;
/** Search answers at most 10,000 results (HubSpot's window), a page of 100 at a time here. */
const SEARCH_PAGE = 100;
/** The operators the form offers: HubSpot's, but BETWEEN (two values); IN and NOT_IN take comma-separated values. */
const OPERATORS: readonly SearchOperator[] = SEARCH_OPERATORS.filter((o) => o !== 'BETWEEN');
const VALUELESS: readonly SearchOperator[] = ['HAS_PROPERTY', 'NOT_HAS_PROPERTY'];
const LISTS: readonly SearchOperator[] = ['IN', 'NOT_IN'];

/** A page of search results as the records page shows it: the matches, what is known of their number, the next page's parameter. */
interface SearchedPage {
  results: SearchResultView[];
  total: string;
  next: { param: 'after' | 'offset'; value: string } | null;
}

interface Criteria {
  q?: string;
  property?: string;
  operator: SearchOperator;
  value?: string;
}

/** The search form's criteria as CRM search's request (its rules and caps apply: their refusals are 400 pages). */
function searchInput(c: Criteria, after: number, properties?: string[]): SearchRequestInput {
  const filter =
    c.property === undefined
      ? []
      : [
          {
            filters: [
              VALUELESS.includes(c.operator)
                ? { propertyName: c.property, operator: c.operator }
                : LISTS.includes(c.operator)
                  ? {
                      propertyName: c.property,
                      operator: c.operator,
                      values: (c.value ?? '').split(',').map((v) => v.trim()),
                    }
                  : { propertyName: c.property, operator: c.operator, value: c.value ?? '' },
            ],
          },
        ];
  return {
    filterGroups: filter,
    ...(c.q !== undefined ? { query: c.q } : {}),
    sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
    ...(properties ? { properties } : {}),
    limit: SEARCH_PAGE,
    after,
  };
}

/**
 * An account's records of any of its object types (standard and custom) a page at a time (keyset by
 * id), found by CRM search (free text and a property filter), and a record's property history.
 */
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
    private readonly limits: LimitsQueries,
    private readonly search: CrmSearchQueries,
  ) {}

  /** The account's object types (standard, then its custom objects); the standard ones without an account. */
  private typesOf(hubId: number | undefined): Array<{ id: string; label: string }> {
    const types = hubId === undefined ? STANDARD_TYPES : this.limits.objectTypes(hubId);
    return types.map((t) => ({ id: t.objectTypeId, label: t.pluralLabel }));
  }

  @Get()
  async browse(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.responses.signedIn(request, reply, async (csrfToken) => {
      const q = request.query;
      const hubId = whole(q, 'hubId', 1);
      if (hubId !== undefined && !this.directory.getAccount(hubId)) throw consoleErrors.notFound(`Account ${hubId}`);
      const types = this.typesOf(hubId);
      const type = text(q, 'type') ?? '0-1';
      if (!types.some((t) => t.id === type))
        throw consoleErrors.badInput(`type must be one of ${types.map((t) => t.id).join(', ')}.`);
      const after = whole(q, 'after') ?? 0;
      const operatorText = text(q, 'operator') ?? 'EQ';
      if (!OPERATORS.includes(operatorText as SearchOperator)) {
        throw consoleErrors.badInput(`operator must be one of ${OPERATORS.join(', ')}.`);
      }
      const criteria: Criteria = {
        q: text(q, 'q'),
        property: text(q, 'property'),
        operator: operatorText as SearchOperator,
        value: text(q, 'value'),
      };
      if (criteria.property === undefined && criteria.value !== undefined) {
        throw consoleErrors.badInput('Name the property the value is for.');
      }
      const option = (value: string, label: string, selected: boolean) =>
        selected
          ? html`<option value="${value}" selected>${label}</option>`
          : html`<option value="${value}">${label}</option>`;
      const form = html`<form class="filters" method="get" action="/console/records">
          <div>
            <label for="hubId">Account (hubId)</label
            ><input id="hubId" type="text" name="hubId" value="${hubId ?? ''}" required />
          </div>
          <div>
            <label for="type">Type</label
            ><select id="type" name="type">
              ${types.map((t) => option(t.id, `${t.label} (${t.id})`, t.id === type))}
            </select>
          </div>
          <div>
            <label for="q">Search text</label
            ><input id="q" type="text" name="q" value="${criteria.q ?? ''}" placeholder="ada" />
          </div>
          <div>
            <label for="property">Property</label
            ><input id="property" type="text" name="property" value="${criteria.property ?? ''}" placeholder="email" />
          </div>
          <div>
            <label for="operator">Operator</label
            ><select id="operator" name="operator">
              ${OPERATORS.map((o) => option(o, o, o === criteria.operator))}
            </select>
          </div>
          <div>
            <label for="value">Value</label
            ><input id="value" type="text" name="value" value="${criteria.value ?? ''}" />
          </div>
          <button type="submit">Show</button>
        </form>
        <p class="muted">
          Search text looks in the type's searchable properties (CRM search's <code>query</code>); a property is
          filtered with the operator (IN, NOT_IN: values separated by commas). Search sees the account's records as the
          search API does (after its search lag). Without either, every record by id.
        </p>`;
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
      let rows: Array<{ id: string | number; properties: Record<string, string | null>; updatedAt: string }>;
      let nextHref: string | null = null;
      let total: string | null = null;
      if (criteria.q !== undefined || criteria.property !== undefined) {
        const params = new URLSearchParams({ hubId: String(hubId), type, operator: criteria.operator });
        for (const k of ['q', 'property', 'value'] as const) if (criteria[k] !== undefined) params.set(k, criteria[k]);
        const found = await this.searched(hubId, type, criteria, after, whole(q, 'offset') ?? 0);
        rows = found.results;
        total = found.total;
        if (found.next !== null) {
          params.set(found.next.param, found.next.value);
          nextHref = `/console/records?${params.toString()}`;
        }
      } else {
        // A custom type has no default properties to show: its own (non-sensitive) ones, a handful.
        const shown = type.startsWith('2-') ? { properties: this.shownProperties(hubId, type).slice(0, 20) } : {};
        const page = this.records.page(hubId, type, { archived: false, after, limit: PAGE, ...shown });
        rows = page.results;
        if (page.next !== null) nextHref = `/console/records?hubId=${hubId}&type=${type}&after=${page.next}`;
      }
      const body = html`${form} ${total !== null ? html`<p role="status">${total}</p>` : html``}
      ${table(
        ['Id', 'Properties', 'Updated'],
        rows.map(
          (r) =>
            html`<tr>
              <td><a href="/console/records/${hubId}/${type}/${r.id}">${r.id}</a></td>
              <td>
                ${withoutSecretLike(
                  Object.entries(r.properties)
                    .filter(
                      ([k, v]) => v !== null && !k.startsWith('hs_') && k !== 'createdate' && k !== 'lastmodifieddate',
                    )
                    .map(([k, v]) => `${k}: ${v}`)
                    .join(' · '),
                )}
              </td>
              <td>${r.updatedAt}</td>
            </tr>`,
        ),
        'No records.',
      )}
      ${nextHref !== null ? html`<p class="pager"><a href="${nextHref}">Next records</a></p>` : html``}`;
      sendPage(reply, 200, consolePage('Records', body, { csrfToken }));
    });
  }

  private shownProperties(hubId: number, type: string): string[] {
    return this.properties.list(hubId, type, { archived: false, dataSensitivity: 'non_sensitive' }).map((p) => p.name);
  }

  /**
   * CRM search's published query: a page of matches in id order (`after`, an id), without search's
   * exact total where counting it would cost more than the page (`pageById`: "more than N"); under the
   * account's search lag, search itself (`offset`, its window). A request search refuses (unknown
   * property, too many words, past the window) is a 400 page.
   */
  private async searched(
    hubId: number,
    type: string,
    criteria: Criteria,
    after: number,
    offset: number,
  ): Promise<SearchedPage> {
    const shown = type.startsWith('2-') ? this.shownProperties(hubId, type).slice(0, 20) : undefined;
    try {
      const searchType = this.search.resolve(hubId, type);
      const byId = this.search.pageById(hubId, searchType, searchRequestFrom(searchInput(criteria, 0, shown)), after);
      if (byId) {
        const more = byId.next !== null ? ', more may follow' : '';
        return {
          results: byId.results,
          total: byId.total !== null ? `${byId.total} found` : `${byId.results.length} shown${more}`,
          next: byId.next === null ? null : { param: 'after', value: byId.next },
        };
      }
      const answer = await this.search.search(
        hubId,
        searchType,
        searchRequestFrom(searchInput(criteria, offset, shown)),
      );
      return {
        results: answer.results,
        total: `${answer.total} found`,
        next: answer.paging ? { param: 'offset', value: answer.paging.next.after } : null,
      };
    } catch (error) {
      if (error instanceof HubSpotError && error.httpStatus < 500) throw consoleErrors.badInput(error.message);
      throw error;
    }
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
      if (!this.directory.getAccount(hubId)) throw consoleErrors.notFound(`Account ${hubId}`);
      const types = this.typesOf(hubId);
      if (!types.some((t) => t.id === type)) throw consoleErrors.notFound(`Record type ${type.slice(0, 40)}`);
      const names = this.shownProperties(hubId, type);
      const record =
        this.records.get(hubId, type, id, false, { properties: names }) ??
        this.records.get(hubId, type, id, true, { properties: names });
      if (!record) throw consoleErrors.notFound(`Record ${id} of type ${type} in account ${hubId}`);
      const history = await this.history.of(hubId, type, id, Object.keys(record.properties));
      // The first 100 associated records of each of the account's types (the records API pages further).
      const associated = types.flatMap((to) =>
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
