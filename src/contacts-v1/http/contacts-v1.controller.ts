import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { PropertiesQueries } from '../../crm-schema';
import { recordScopes } from '../../crm-records';
import { CrmRecordsQueries, RecordHistory, type RecordView } from '../../crm-records/crm-records.queries';
import { type AccessTokenClaims, Token } from '../../oauth';
import { Authenticated } from '../../platform/http/authentication';
import { WireResponse } from '../../platform/http/wire-response';
import { contactDoesNotExist } from '../domain/contacts-v1-errors';
import { type LegacyContact, legacyContact, LIST_DEFAULT_PROPERTIES } from '../domain/legacy-contact';
import { type LegacyQuery, parseLegacyQuery, parseVid } from './contacts-v1-query';
import { LEGACY_CONTACT_PAGE_SCHEMA, LEGACY_CONTACT_SCHEMA } from './wire-schemas';

const CONTACTS = '0-1';
const SENSITIVITIES = ['non_sensitive', 'sensitive', 'highly_sensitive'] as const;

/** The e-mail is read whatever is shown: it is the contact's identity profile. */
const withEmail = (names: readonly string[]) => (names.includes('email') ? names : [...names, 'email']);

/**
 * HubSpot's legacy Contacts API (v1), read-only: the all-contacts list that HubSpot's OAuth
 * quickstart calls right after its code exchange, and a contact's profile by vid or e-mail. Served
 * from the CRM records read model (the same contacts the objects API writes), in v1's shape.
 */
@ApiTags('Contacts v1 (legacy)')
@Controller('contacts/v1')
export class ContactsV1Controller {
  constructor(
    private readonly records: CrmRecordsQueries,
    private readonly history: RecordHistory,
    private readonly properties: PropertiesQueries,
  ) {}

  @Get('lists/all/contacts/all')
  @Authenticated({ by: 'bearer', scopes: recordScopes('contacts', 'read') })
  @ApiOperation({
    summary: 'All contacts in vid order (count ≤ 100, default 20; vidOffset: the previous page’s vid-offset)',
  })
  @ApiQuery({ name: 'count', required: false, type: Number })
  @ApiQuery({ name: 'vidOffset', required: false, type: Number })
  @ApiQuery({ name: 'property', required: false, isArray: true })
  @ApiQuery({ name: 'propertyMode', required: false, enum: ['value_only', 'value_and_history'] })
  @WireResponse(200, LEGACY_CONTACT_PAGE_SCHEMA, { serialize: true, description: 'The v1 contacts page' })
  async all(
    @Query() raw: Record<string, string | string[] | undefined>,
    @Token() token: AccessTokenClaims,
  ): Promise<{ contacts: LegacyContact[]; 'has-more': boolean; 'vid-offset': number }> {
    const query = parseLegacyQuery(raw, 'list');
    const names = query.properties ?? LIST_DEFAULT_PROPERTIES;
    const page = this.records.page(token.hubId, CONTACTS, {
      archived: false,
      after: query.vidOffset,
      limit: query.count,
      properties: withEmail(names),
    });
    const times = this.timeProperties(token.hubId);
    const contacts = await Promise.all(
      page.results.map((r) => this.legacy(token.hubId, r, { query, names, times, addedAt: true })),
    );
    const last = page.results[page.results.length - 1];
    return {
      contacts,
      'has-more': page.next !== null,
      // HubSpot's offset is the last vid of the page (the request's own offset on an empty page).
      'vid-offset': last ? Number(last.id) : query.vidOffset,
    };
  }

  @Get('contact/vid/:vid/profile')
  @Authenticated({ by: 'bearer', scopes: recordScopes('contacts', 'read') })
  @ApiOperation({ summary: 'A contact by vid, with every property that has a value (and its history by default)' })
  @WireResponse(200, LEGACY_CONTACT_SCHEMA, { serialize: true, description: 'The v1 contact profile' })
  byVid(
    @Param('vid') vid: string,
    @Query() raw: Record<string, string | string[] | undefined>,
    @Token() token: AccessTokenClaims,
  ): Promise<LegacyContact> {
    return this.profile(token.hubId, parseVid(vid), raw);
  }

  @Get('contact/email/:email/profile')
  @Authenticated({ by: 'bearer', scopes: recordScopes('contacts', 'read') })
  @ApiOperation({ summary: 'A contact by e-mail (any case), as the vid profile' })
  @WireResponse(200, LEGACY_CONTACT_SCHEMA, { serialize: true, description: 'The v1 contact profile' })
  byEmail(
    @Param('email') email: string,
    @Query() raw: Record<string, string | string[] | undefined>,
    @Token() token: AccessTokenClaims,
  ): Promise<LegacyContact> {
    const id = email.length <= 254 ? this.records.idBy(token.hubId, CONTACTS, 'email', email, false) : null;
    if (id === null) throw contactDoesNotExist();
    return this.profile(token.hubId, id, raw);
  }

  private async profile(hubId: number, vid: number, raw: Record<string, string | string[] | undefined>) {
    const query = parseLegacyQuery(raw, 'profile');
    const names = query.properties ?? this.definedProperties(hubId).map((p) => p.name);
    const record = this.records.get(hubId, CONTACTS, vid, false, { properties: withEmail(names) });
    if (!record) throw contactDoesNotExist();
    return this.legacy(hubId, record, { query, names, times: this.timeProperties(hubId), addedAt: false });
  }

  private async legacy(
    hubId: number,
    record: RecordView,
    shown: { query: LegacyQuery; names: readonly string[]; times: ReadonlySet<string>; addedAt: boolean },
  ): Promise<LegacyContact> {
    const { query, names, times, addedAt } = shown;
    const history =
      query.propertyMode === 'value_and_history'
        ? await this.history.of(hubId, CONTACTS, Number(record.id), names)
        : undefined;
    return legacyContact(record, {
      hubId,
      shown: names,
      timeProperties: times,
      ...(history ? { history } : {}),
      addedAt,
      listMemberships: query.showListMemberships,
    });
  }

  private definedProperties(hubId: number) {
    return SENSITIVITIES.flatMap((dataSensitivity) =>
      this.properties.list(hubId, CONTACTS, { archived: false, dataSensitivity }),
    );
  }

  /** The account's date and datetime properties of contacts (v1 sends their values as epoch ms). */
  private timeProperties(hubId: number): ReadonlySet<string> {
    return new Set(
      this.definedProperties(hubId)
        .filter((p) => p.type === 'datetime' || p.type === 'date')
        .map((p) => p.name),
    );
  }
}
