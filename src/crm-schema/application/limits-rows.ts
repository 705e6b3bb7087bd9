import type { PropertyDefinition } from '../domain/limits-events';
import { PropertyView, toPropertyView } from './property.views';

/** Rows of the `limits` read model as the queries select them, and the property row's view. */

export interface PropertyRow {
  hub_id: number;
  object_type_id: string;
  name: string;
  definition: string;
  calculated: number;
  created_user_id: number | null;
  updated_user_id: number | null;
  created_at: number;
  updated_at: number;
  archived: number;
  archived_at: number | null;
}

export interface SchemaRow {
  hub_id: number;
  object_type_id: string;
  id: string;
  name: string;
  fully_qualified_name: string;
  singular_label: string;
  plural_label: string;
  body: string;
  created_user_id: number | null;
  created_at: number;
  updated_at: number;
  archived: number;
  archived_at: number | null;
}

/** The schema row's JSON body: defined where the projection writes it. */
export type { SchemaBody } from '../projections/limits.projection';

export function rowToProperty(row: PropertyRow): PropertyView {
  return toPropertyView(JSON.parse(row.definition) as PropertyDefinition, {
    hubspotDefined: false,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archived: row.archived === 1,
    archivedAt: row.archived_at,
    createdUserId: row.created_user_id,
    updatedUserId: row.updated_user_id,
  });
}
