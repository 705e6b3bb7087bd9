/** Subscription tiers of an account and their ceilings: plain domain facts, no framework, no environment. */
export type Tier = 'free' | 'starter' | 'professional' | 'enterprise';
export const TIERS: readonly Tier[] = ['free', 'starter', 'professional', 'enterprise'];

export interface TierLimits {
  calculatedProperties: number;
  customObjectTypes: number;
  customProperties: number;
  /** Association labels (named association definitions) per pair of object types. */
  associationLabels: number;
}

/**
 * Defaults documented in the README: free and starter have neither, professional has calculated
 * properties, enterprise has both. Association labels: 50 per object pair from professional up, none
 * below (HubSpot's published figure; custom labels are a Professional/Enterprise feature).
 */
export const DEFAULT_TIER_LIMITS: Record<Tier, TierLimits> = {
  free: { calculatedProperties: 0, customObjectTypes: 0, customProperties: 10, associationLabels: 0 },
  starter: { calculatedProperties: 0, customObjectTypes: 0, customProperties: 1000, associationLabels: 0 },
  professional: { calculatedProperties: 200, customObjectTypes: 0, customProperties: 1000, associationLabels: 50 },
  enterprise: { calculatedProperties: 400, customObjectTypes: 10, customProperties: 1000, associationLabels: 50 },
};
