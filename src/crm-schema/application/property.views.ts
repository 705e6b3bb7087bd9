import type { HubSpotError } from '../../platform/errors/hubspot-error';
import type { PropertyDefinition } from '../domain/limits-events';

/**
 * Wire shapes of HubSpot's CRM properties API (Property, PropertyGroup, the batch answers and their
 * StandardError). Dates are ISO 8601 strings, as HubSpot's CRM v3 specs declare them
 * (`format: date-time`).
 */
export interface PropertyView {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  description: string;
  groupName: string;
  options: PropertyDefinition['options'];
  displayOrder: number;
  calculated: boolean;
  externalOptions: boolean;
  hasUniqueValue: boolean;
  hidden: boolean;
  hubspotDefined?: boolean;
  formField: boolean;
  dataSensitivity: 'non_sensitive' | 'sensitive' | 'highly_sensitive';
  numberDisplayHint?: string;
  textDisplayHint?: string;
  showCurrencySymbol?: boolean;
  currencyPropertyName?: string;
  modificationMetadata: { archivable: boolean; readOnlyDefinition: boolean; readOnlyValue: boolean };
  calculationFormula?: string;
  referencedObjectType?: string;
  createdAt?: string;
  updatedAt?: string;
  archived: boolean;
  archivedAt?: string;
  createdUserId?: string;
  updatedUserId?: string;
}

/** HubSpot's PropertyGroup. */
export interface PropertyGroupView {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

/** HubSpot's BatchResponseProperty (201, 200) and BatchResponsePropertyWithErrors (207). */
export interface PropertyBatchView {
  status: 'COMPLETE';
  results: PropertyView[];
  errors?: StandardErrorView[];
  numErrors?: number;
  requestedAt?: string;
  startedAt: string;
  completedAt: string;
}

/** HubSpot's StandardError: one refused input of a batch. */
export interface StandardErrorView {
  status: string;
  category: string;
  message: string;
  context: Record<string, string[]>;
  errors: Array<{
    message: string;
    in?: string;
    code?: string;
    subCategory?: string;
    context?: Record<string, string[]>;
  }>;
  links: Record<string, string>;
}

/** One refused input as HubSpot's StandardError; `context` says which (`inputIndex`, `propertyName`). */
export function standardError(error: HubSpotError, context: Record<string, string[]>): StandardErrorView {
  const details = error.extras.errors ?? [];
  const subCategory = error.extras.subCategory;
  return {
    status: 'error',
    category: error.category,
    message: error.message,
    context: { ...error.extras.context, ...context },
    errors:
      details.length > 0
        ? details
        : [{ message: error.message, ...(subCategory ? { subCategory } : {}), code: error.category }],
    links: {},
  };
}

export const iso = (ms: number) => new Date(ms).toISOString();

export function toPropertyView(
  p: PropertyDefinition,
  meta: {
    hubspotDefined: boolean;
    createdAt?: number;
    updatedAt?: number;
    archived: boolean;
    archivedAt?: number | null;
    createdUserId?: number | null;
    updatedUserId?: number | null;
  },
): PropertyView {
  const calculated = p.fieldType === 'calculation_equation';
  const view: PropertyView = {
    name: p.name,
    label: p.label,
    type: p.type,
    fieldType: p.fieldType,
    description: p.description,
    groupName: p.groupName,
    options: p.options,
    displayOrder: p.displayOrder,
    calculated,
    externalOptions: p.externalOptions,
    hasUniqueValue: p.hasUniqueValue,
    hidden: p.hidden,
    formField: p.formField,
    dataSensitivity: p.dataSensitivity ?? 'non_sensitive',
    modificationMetadata: {
      archivable: !meta.hubspotDefined,
      readOnlyDefinition: meta.hubspotDefined,
      readOnlyValue: calculated,
    },
    archived: meta.archived,
  };
  if (meta.hubspotDefined) view.hubspotDefined = true;
  if (p.calculationFormula !== null) view.calculationFormula = p.calculationFormula;
  if (p.numberDisplayHint !== undefined) view.numberDisplayHint = p.numberDisplayHint;
  if (p.textDisplayHint !== undefined) view.textDisplayHint = p.textDisplayHint;
  if (p.showCurrencySymbol !== undefined) view.showCurrencySymbol = p.showCurrencySymbol;
  if (p.currencyPropertyName !== undefined) view.currencyPropertyName = p.currencyPropertyName;
  if (p.referencedObjectType !== null) view.referencedObjectType = p.referencedObjectType;
  if (meta.createdAt !== undefined) view.createdAt = iso(meta.createdAt);
  if (meta.updatedAt !== undefined) view.updatedAt = iso(meta.updatedAt);
  if (meta.archivedAt !== undefined && meta.archivedAt !== null) view.archivedAt = iso(meta.archivedAt);
  if (meta.createdUserId !== undefined && meta.createdUserId !== null) view.createdUserId = String(meta.createdUserId);
  const updatedBy = meta.updatedUserId ?? meta.createdUserId;
  if (updatedBy !== undefined && updatedBy !== null) view.updatedUserId = String(updatedBy);
  return view;
}
