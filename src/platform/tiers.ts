/** Subscription tiers of an account and their ceilings: plain domain facts, no framework, no environment. */
export type Tier = 'free' | 'starter' | 'professional' | 'enterprise';
export const TIERS: readonly Tier[] = ['free', 'starter', 'professional', 'enterprise'];

export interface TierLimits {
  calculatedProperties: number;
  customObjectTypes: number;
  customProperties: number;
  /** Association labels (named association definitions) per pair of object types. */
  associationLabels: number;
  /** Non-archived records per HubSpot-defined object type (contacts, companies, deals, tickets). */
  records: number;
  /** Non-archived records of all the account's custom object types together. */
  customObjectRecords: number;
}

/**
 * Records: HubSpot's limits guide shows 15,000,000 per standard object type (the same on every
 * tier); custom object records exist from enterprise (the tier that has custom object types), with
 * one overall ceiling of 500,000.
 *
 * Defaults documented in the README: free and starter have neither, professional has calculated
 * properties, enterprise has both. Association labels: 50 per object pair from professional up, none
 * below (HubSpot's published figure; custom labels are a Professional/Enterprise feature).
 */
const records = (customObjectRecords: number) => ({ records: 15_000_000, customObjectRecords });

export const DEFAULT_TIER_LIMITS: Record<Tier, TierLimits> = {
  free: { calculatedProperties: 0, customObjectTypes: 0, customProperties: 10, associationLabels: 0, ...records(0) },
  starter: {
    calculatedProperties: 0,
    customObjectTypes: 0,
    customProperties: 1000,
    associationLabels: 0,
    ...records(0),
  },
  professional: {
    calculatedProperties: 200,
    customObjectTypes: 0,
    customProperties: 1000,
    associationLabels: 50,
    ...records(0),
  },
  enterprise: {
    calculatedProperties: 400,
    customObjectTypes: 10,
    customProperties: 1000,
    associationLabels: 50,
    ...records(500_000),
  },
};
