import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { JournalFileUrls } from '../application/journal-file-urls';
import { JournalReader } from '../application/journal-reader';
import { JournalQueries } from '../application/journal.queries';
import { OFFSET_PATTERN } from '../domain/journal-entries';
import { fileEntryGone, fileUrlRefused } from '../domain/journal-errors';

/**
 * The entry files the journal's URLs point to. No Authorization header: the URL's signature and
 * expiry are the credential (HubSpot's are pre-signed storage URLs). Not in /docs: no HubSpot spec
 * describes it, its URLs come only from the journal's answers.
 */
@ApiExcludeController()
@Controller('webhooks-journal/files/2026-03')
export class JournalFilesController {
  constructor(
    private readonly urls: JournalFileUrls,
    private readonly queries: JournalQueries,
    private readonly reader: JournalReader,
  ) {}

  @Get(':offset')
  @Header('cache-control', 'private, no-store')
  file(@Param('offset') offset: string, @Query() query: Record<string, unknown>): unknown {
    if (!OFFSET_PATTERN.test(offset)) throw fileUrlRefused();
    const appId = this.urls.verify(offset, query);
    if (appId === null) throw fileUrlRefused();
    const entry = this.queries.entry(appId, offset);
    if (!entry || !this.reader.visible(appId, entry)) throw fileEntryGone();
    return JSON.parse(entry.body) as unknown;
  }
}
