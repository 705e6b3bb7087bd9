import type { RouteFacts } from '../../platform/http/authentication';
import { scopeFamilyOf } from '../domain/object-types';
import { crmLimitsReadScopes, propertyScopes, type ScopesVersion } from '../domain/scopes';
import { parseSegment } from './query-params';

/** The routes of this module serve v3, 2026-03 and 2026-09 only. */
const scopesVersionOf = (route: RouteFacts): ScopesVersion =>
  route.version === '2026-03' || route.version === '2026-09' ? route.version : 'v3';

/**
 * The scope rule of the properties and property-groups routes (`@Authenticated({ scopes })`): the
 * scopes of the path's object type (HubSpot's "any of"; fewer at 2026-09). An object type no path can
 * name is the route's 400, before the scopes are asked.
 */
export const objectTypeScopes =
  (access: 'read' | 'write') =>
  (route: RouteFacts): readonly string[] =>
    propertyScopes(
      scopeFamilyOf(parseSegment(route.params.objectType ?? '', 'objectType')),
      access,
      scopesVersionOf(route),
    );

/** The scope rule of the calculated-properties, custom-properties and association-label limits GETs. */
export const limitsReadScopes = (route: RouteFacts): readonly string[] => crmLimitsReadScopes(scopesVersionOf(route));
