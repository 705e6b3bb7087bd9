/** The migrate endpoint's answer (HubSpot's CardMigrateViewsResponse), from the migration counts. */
export interface MigrationProgress {
  legacyCardId: string;
  appCardId: string;
  helpdeskAppCardId: string | null;
  startedAt: number;
  endedAt: number | null;
  totalPortalCount: number;
  remainingPortalCount: number;
}

export interface CardMigrateViewsResponse {
  message: string;
  startedAt: number;
  totalPortalCount: number;
  remainingPortalCount: number;
  endedAt?: number;
}

export function migrationResponse(p: MigrationProgress, justStarted: boolean): CardMigrateViewsResponse {
  const target =
    p.helpdeskAppCardId !== null
      ? `app card ${p.appCardId} (help desk views: app card ${p.helpdeskAppCardId})`
      : `app card ${p.appCardId}`;
  const subject = `Migration of legacy CRM card ${p.legacyCardId} to ${target}`;
  let message: string;
  if (p.endedAt !== null) {
    message = `${subject} has completed: ${p.totalPortalCount} portal(s) now show the app card in place of the legacy card.`;
  } else if (justStarted) {
    message = `${subject} has started: ${p.totalPortalCount} portal(s) to migrate. Send the same request again to follow its progress.`;
  } else {
    message = `${subject} is in progress: ${p.remainingPortalCount} of ${p.totalPortalCount} portal(s) remaining.`;
  }
  return {
    message,
    startedAt: p.startedAt,
    totalPortalCount: p.totalPortalCount,
    remainingPortalCount: p.remainingPortalCount,
    ...(p.endedAt !== null ? { endedAt: p.endedAt } : {}),
  };
}
