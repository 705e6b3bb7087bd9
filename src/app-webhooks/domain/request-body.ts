/**
 * The bytes of a delivery request: HubSpot's JSON array, each item's payload fields in HubSpot's
 * order with `attemptNumber` after `subscriptionType`. Pure, so the delivery log can rebuild exactly
 * what was sent from the items an attempt names (their payloads and attempt numbers) instead of the
 * attempt event carrying the body.
 */
export interface BodyItem {
  payload: Record<string, unknown>;
  attemptNumber: number;
}

export function requestBody(items: readonly BodyItem[]): string {
  return JSON.stringify(
    items.map((i) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(i.payload)) {
        out[key] = value;
        if (key === 'subscriptionType') out.attemptNumber = i.attemptNumber;
      }
      return out;
    }),
  );
}
