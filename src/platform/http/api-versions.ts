import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * HubSpot serves each API at `v3` (or `v1`) paths and at date-versioned ones; the version sits at a
 * different place in each API's path (`/crm/v3/limits` but `/crm/limits/2026-03`), so every API
 * names its prefixes per version in one table, and one controller serves them all.
 */
export const API_VERSIONS = ['v1', 'v3', '2026-03', '2026-09'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** Route prefix (no leading slash) -> the version it serves; filled as controllers declare their paths. */
const versionByPrefix = new Map<string, ApiVersion>();
/** Matched route pattern -> version, so a request costs one map lookup. */
const versionByRoute = new Map<string, ApiVersion>();

/**
 * The controller paths of one API at each version it exists in, for `@Controller(versionedPaths({...}))`.
 * Example: `versionedPaths({ v3: 'crm/v3/limits', '2026-03': 'crm/limits/2026-03', '2026-09': 'crm/limits/2026-09' })`.
 */
export function versionedPaths(byVersion: Partial<Record<ApiVersion, string | readonly string[]>>): string[] {
  const paths: string[] = [];
  for (const version of API_VERSIONS) {
    const given = byVersion[version];
    if (given === undefined) continue;
    for (const path of typeof given === 'string' ? [given] : given) {
      const prefix = path.replace(/^\/+|\/+$/g, '');
      const known = versionByPrefix.get(prefix);
      if (known !== undefined && known !== version)
        throw new Error(`path ${prefix} declared for ${known} and ${version}`);
      versionByPrefix.set(prefix, version);
      paths.push(prefix);
    }
  }
  return paths;
}

/** The version a matched route pattern (`/crm/limits/2026-03/calculated-properties`) belongs to. */
export function versionOfRoute(routeUrl: string): ApiVersion | undefined {
  const cached = versionByRoute.get(routeUrl);
  if (cached !== undefined) return cached;
  const path = routeUrl.replace(/^\/+/, '');
  let best: { prefix: string; version: ApiVersion } | undefined;
  for (const [prefix, version] of versionByPrefix) {
    if ((path === prefix || path.startsWith(`${prefix}/`)) && (!best || prefix.length > best.prefix.length)) {
      best = { prefix, version };
    }
  }
  if (best) versionByRoute.set(routeUrl, best.version);
  return best?.version;
}

/** `@RouteVersion() version: ApiVersion` — the version of the path this request came in on. */
export const RouteVersion = createParamDecorator((_: unknown, ctx: ExecutionContext): ApiVersion => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  const version = versionOfRoute(request.routeOptions.url ?? '');
  if (!version) throw new Error(`route ${request.routeOptions.url} was not declared with versionedPaths`);
  return version;
});
