/** Wire shapes of the limits endpoints (HubSpot's limitsTracking.json). */
/** GET /crm/v3/limits/associations/labels: one entry per (from, to) pair with a definition. */
export interface AssociationLabelLimit {
  fromObjectType: { objectTypeId: string; singularLabel: string; pluralLabel: string };
  toObjectType: { objectTypeId: string; singularLabel: string; pluralLabel: string };
  limit: number;
  usage: number;
  percentage: number;
  allLabels: string[];
}

export interface CalculatedPropertyLimits {
  overallLimit: number;
  overallUsage: number;
  overallPercentage: number;
  byObjectType: Array<{ objectTypeId: string; singularLabel: string; pluralLabel: string; usage: number }>;
}

export interface CustomObjectTypeLimits {
  limit: number;
  usage: number;
  percentage: number;
}

export interface CustomPropertyLimits {
  overallLimit: number;
  overallUsage: number;
  overallPercentage: number;
  byObjectType: Array<{
    objectTypeId: string;
    singularLabel: string;
    pluralLabel: string;
    usage: number;
    limit: number;
    percentage: number;
  }>;
}
