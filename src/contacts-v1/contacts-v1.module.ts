import { Module } from '@nestjs/common';
import { CrmRecordsModule } from '../crm-records';
import { CrmSchemaModule } from '../crm-schema';
import { AccessTokenVerificationModule } from '../oauth';
import { ContactsV1Controller } from './http/contacts-v1.controller';

/**
 * HubSpot's legacy Contacts API (v1), read-only, over the CRM records module's read model: no
 * events and no read model of its own (v1 and the objects API are two views of the same contacts).
 */
@Module({
  imports: [CrmRecordsModule, CrmSchemaModule, AccessTokenVerificationModule],
  controllers: [ContactsV1Controller],
})
export class ContactsV1Module {}
