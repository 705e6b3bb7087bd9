/** HubSpot's install URL: {auth_url}?client_id=…&redirect_uri=…&scope=…[&optional_scope=…]. */
export function buildInstallUrl(
  authUrl: string,
  app: { clientId: string; redirectUrls: string[]; requiredScopes: string[]; optionalScopes: string[] },
): string {
  const params = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: app.redirectUrls[0] ?? '',
    scope: app.requiredScopes.join(' '),
  });
  if (app.optionalScopes.length > 0) params.set('optional_scope', app.optionalScopes.join(' '));
  return `${authUrl}?${params.toString().replace(/\+/g, '%20')}`;
}
