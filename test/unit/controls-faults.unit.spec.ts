import { FaultRegistry } from '../../src/test-controls/application/fault-registry';
import { ControlsEventType, type FaultEvent, type FaultSet } from '../../src/test-controls/domain/fault-events';
import { parseFaultSpec } from '../../src/test-controls/domain/fault-spec';
import { compilePathGlob, MAX_MATCHED_PATH_LENGTH } from '../../src/test-controls/domain/path-glob';
import { appFaultsDecider, MAX_FAULTS_PER_APP } from '../../src/test-controls/domain/faults.decider';
import { requestPath } from '../../src/test-controls/http/fault-injection';
import { ManualClock } from '../../src/platform/clock';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { DeciderSpecification } from '../support/decider-specification';

const set = (faultId: string, extra: Partial<FaultSet['data']> = {}): FaultSet['data'] => ({
  appId: 7,
  developerHubId: 70,
  faultId,
  setAt: 1_000,
  match: {},
  response: { kind: 'error', status: 500 },
  ...extra,
});

describe('parseFaultSpec', () => {
  it('accepts the issue’s shape and normalises the method', () => {
    expect(
      parseFaultSpec({
        match: { method: 'post', path: '/crm/v3/properties/*', hubId: 5 },
        response: { kind: 'rate-limit', policy: 'DAILY' },
        times: 3,
        seconds: 60,
      }),
    ).toEqual({
      ok: true,
      spec: {
        match: { method: 'POST', path: '/crm/v3/properties/*', hubId: 5 },
        response: { kind: 'rate-limit', policy: 'DAILY' },
        times: 3,
        seconds: 60,
      },
    });
    expect(parseFaultSpec({ response: { kind: 'latency', ms: 10 }, ratio: 0.25 })).toMatchObject({ ok: true });
  });

  it.each([
    ['bad glob (unbalanced bracket)', { match: { path: '/a/[b' }, response: { kind: 'reset' } }, 'match.path'],
    ['bad glob (relative)', { match: { path: 'a/*' }, response: { kind: 'reset' } }, 'match.path'],
    ['bad glob (NUL)', { match: { path: '/a\u0000' }, response: { kind: 'reset' } }, 'match.path'],
    ['bad glob (too long)', { match: { path: `/${'a'.repeat(600)}` }, response: { kind: 'reset' } }, 'match.path'],
    ['negative seconds', { response: { kind: 'reset' }, seconds: -1 }, 'seconds'],
    ['fractional seconds', { response: { kind: 'reset' }, seconds: 1.5 }, 'seconds'],
    ['unknown kind', { response: { kind: 'teapot' } }, 'response.kind'],
    ['extra response field', { response: { kind: 'reset', ms: 1 } }, 'response.ms'],
    ['latency too long', { response: { kind: 'latency', ms: 60_001 } }, 'response.ms'],
    ['ratio 0', { response: { kind: 'reset' }, ratio: 0 }, 'ratio'],
    ['ratio as text', { response: { kind: 'reset' }, ratio: '0.5' }, 'ratio'],
    ['not an object', 'reset', 'body'],
    ['match not an object', { match: '/x', response: { kind: 'reset' } }, 'match'],
  ])('%s is refused', (_name, body, field) => {
    const result = parseFaultSpec(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.in)).toContain(field);
  });
});

describe('appFaultsDecider', () => {
  const spec = DeciderSpecification.for(appFaultsDecider);
  const setEvent = (faultId: string): FaultEvent => ({ type: ControlsEventType.FaultSet, data: set(faultId) });
  const specOf = { match: {}, response: { kind: 'reset' as const } };

  it('records a set fault with its app, developer account and time', () => {
    spec
      .given([])
      .when({ kind: 'SetFault', appId: 7, developerHubId: 70, faultId: 'f1', spec: specOf, now: 5 })
      .then([
        {
          type: ControlsEventType.FaultSet,
          data: { ...specOf, appId: 7, developerHubId: 70, faultId: 'f1', setAt: 5 },
        },
      ]);
  });

  it('clears a known fault; an unknown or cleared one is a 404', () => {
    spec
      .given([setEvent('f1')])
      .when({ kind: 'ClearFault', appId: 7, faultId: 'f1', now: 9 })
      .then([{ type: ControlsEventType.FaultCleared, data: { appId: 7, faultId: 'f1', clearedAt: 9 } }]);
    spec
      .given([
        setEvent('f1'),
        { type: ControlsEventType.FaultCleared, data: { appId: 7, faultId: 'f1', clearedAt: 9 } },
      ])
      .when({ kind: 'ClearFault', appId: 7, faultId: 'f1', now: 10 })
      .thenThrows((e: HubSpotError) => e.httpStatus === 404);
  });

  it('clears all with the ids it cleared, and records nothing when there are none', () => {
    spec
      .given([setEvent('f1'), setEvent('f2')])
      .when({ kind: 'ClearAppFaults', appId: 7, now: 3 })
      .then([{ type: ControlsEventType.AppFaultsCleared, data: { appId: 7, faultIds: ['f1', 'f2'], clearedAt: 3 } }]);
    spec.given([]).when({ kind: 'ClearAppFaults', appId: 7, now: 3 }).thenNothing();
  });

  it(`refuses more than ${MAX_FAULTS_PER_APP} faults on one app`, () => {
    const many = Array.from({ length: MAX_FAULTS_PER_APP }, (_, i) => setEvent(`f${i}`));
    spec
      .given(many)
      .when({ kind: 'SetFault', appId: 7, developerHubId: 70, faultId: 'x', spec: specOf, now: 1 })
      .thenThrows((e: HubSpotError) => e.httpStatus === 400);
  });
});

describe('FaultRegistry', () => {
  const request = { method: 'GET', path: '/crm/v3/properties/contacts' };
  const app = { appId: 7, hubId: 1 };

  it('times: injects exactly that many answers, then lists the fault as used up', () => {
    const r = new FaultRegistry(new ManualClock(1_000));
    r.add(set('f', { times: 2 }));
    expect([r.take(app, request), r.take(app, request), r.take(app, request)].map((h) => h?.faultId ?? null)).toEqual([
      'f',
      'f',
      null,
    ]);
    expect(r.list(7)).toEqual([expect.objectContaining({ injected: 2, active: false })]);
  });

  it('seconds: applies until setAt + seconds on the injected clock', () => {
    const clock = new ManualClock(1_000);
    const r = new FaultRegistry(clock);
    r.add(set('f', { seconds: 10 }));
    clock.set(10_999);
    expect(r.take(app, request)).not.toBeNull();
    clock.set(11_000);
    expect(r.take(app, request)).toBeNull();
    expect(r.get(7, 'f')).toMatchObject({ expiresAt: 11_000, active: false, injected: 1 });
  });

  it('ratio: injects when the draw is under the ratio; a fault not drawn lets the next one have its turn', () => {
    const draws = [0.1, 0.9, 0.49, 0.5];
    const r = new FaultRegistry(new ManualClock(0), () => draws.shift()!);
    r.add(set('half', { ratio: 0.5 }));
    r.add(set('always', { response: { kind: 'reset' } }));
    expect([1, 2, 3, 4].map(() => r.take(app, request)?.faultId)).toEqual(['half', 'always', 'half', 'always']);
  });

  it('matches method, path glob and hubId; the app itself or its developer account’s key', () => {
    const r = new FaultRegistry(new ManualClock(0));
    r.add(set('f', { match: { method: 'POST', path: '/crm/v3/properties/*', hubId: 1 } }));
    const post = { method: 'POST', path: '/crm/v3/properties/contacts' };
    expect(r.take(app, post)?.faultId).toBe('f');
    expect(r.take(app, request)).toBeNull();
    expect(r.take(app, { method: 'POST', path: '/crm/v3/properties/contacts/x' })).toBeNull();
    expect(r.take({ appId: 7, hubId: 2 }, post)).toBeNull();
    expect(r.take({ appId: 8, hubId: 1 }, post)).toBeNull();
    expect(r.take({ appId: 7, developerHubId: 70, hubId: 1 }, post)?.faultId).toBe('f');
    expect(r.take({ appId: 7, developerHubId: 71, hubId: 1 }, post)).toBeNull(); // a key of another account
    // Issue 41, item 7: the key's account owns app 8 too, but a request for app 8 gets app 8's faults only.
    expect(r.take({ appId: 8, developerHubId: 70, hubId: 1 }, post)).toBeNull();
    expect(r.take({ appId: 7, hubId: null }, post)).toBeNull(); // a hubId fault needs a known account
  });

  it('is empty once every fault is removed', () => {
    const r = new FaultRegistry(new ManualClock(0));
    r.add(set('a'));
    r.add(set('b', { appId: 8 }));
    r.remove(7, ['a']);
    expect(r.isEmpty).toBe(false);
    r.remove(8, ['b']);
    expect(r.isEmpty).toBe(true);
  });
});

describe('requestPath', () => {
  it('drops the query and decodes each segment', () => {
    expect(requestPath('/crm/v3/%70roperties/contacts?archived=true')).toBe('/crm/v3/properties/contacts');
    expect(requestPath('http://api.hubapi.com/oauth/v1/token')).toBe('/oauth/v1/token');
    expect(requestPath('/bad/%E0%A4%A')).toBe('/bad/%E0%A4%A');
  });
});

/**
 * Issue 41, item 3: a 36-character glob and one request with a 48-character segment froze the event
 * loop for 9.3 s (picomatch's regex backtracks). The matcher (controls/domain/path-glob.ts) restarts
 * at most once per step, so a match costs about glob length × path length, and paths past
 * MAX_MATCHED_PATH_LENGTH are matched by no glob.
 */
describe('fault path globs: no catastrophic backtracking (issue 41, item 3)', () => {
  const faultWithPath = (path: string) => {
    const parsed = parseFaultSpec({ match: { path }, response: { kind: 'error', status: 500 } });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const r = new FaultRegistry(new ManualClock(0));
    r.add(set('f', { match: parsed.spec.match }));
    return (requestPath: string) => r.take({ appId: 7, hubId: 1 }, { method: 'GET', path: requestPath }) !== null;
  };

  it('the review’s glob against 40- to 48-character segments answers at once', () => {
    const matches = faultWithPath('/crm/v3/properties/*a*a*a*a*a*a*a*ab');
    const started = performance.now();
    const answers = [
      matches(`/crm/v3/properties/${'a'.repeat(48)}`),
      matches(`/crm/v3/properties/${'a'.repeat(40)}c`),
      matches(`/crm/v3/properties/${'a'.repeat(47)}/`),
      matches(`/crm/v3/properties/${'a'.repeat(46)}ab`),
    ];
    const elapsed = performance.now() - started;
    expect(answers).toEqual([false, false, false, true]);
    expect(elapsed).toBeLessThan(500); // picomatch: seconds for each of the first three
  });

  it('the longest glob against the longest matched path, built to make a restarting matcher work hardest: milliseconds', () => {
    const globs = [
      `/${'*a'.repeat(255)}b`,
      `/**/${'a/**/'.repeat(100)}b`,
      `/{a,b}/{a,b}/{a,b}/{a,b}/{a,b}/${'*a'.repeat(20)}b`,
    ];
    const paths = [`/${'a'.repeat(MAX_MATCHED_PATH_LENGTH - 1)}`, `/${'a/'.repeat(1023)}a`];
    const started = performance.now();
    for (const glob of globs) {
      const compiled = compilePathGlob(glob);
      expect(compiled.ok).toBe(true);
      if (compiled.ok) for (const path of paths) expect(compiled.matches(path)).toBe(false);
    }
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('a path longer than MAX_MATCHED_PATH_LENGTH is matched by no glob, not even **', () => {
    const matches = faultWithPath('**');
    expect(matches(`/${'a'.repeat(MAX_MATCHED_PATH_LENGTH - 1)}`)).toBe(true);
    expect(matches(`/${'a'.repeat(MAX_MATCHED_PATH_LENGTH)}`)).toBe(false);
  });

  it.each([
    ['/crm/v3/properties/*', '/crm/v3/properties/contacts', true],
    ['/crm/v3/properties/*', '/crm/v3/properties/contacts/x', false],
    ['/crm/v3/properties/*', '/crm/v3/properties/', false],
    ['/crm/v3/limits/**', '/crm/v3/limits', true],
    ['/crm/v3/limits/**', '/crm/v3/limits/calculated-properties', true],
    ['/crm/v3/limits/**', '/crm/v3/limitsx', false],
    ['/a/**/b', '/a/b', true],
    ['/a/**/b', '/a/x/y/b', true],
    ['/a/**/b', '/a/x/y/c', false],
    ['**/token', '/oauth/v1/token', true],
    ['**', '/anything/at/all', true],
    ['/a/x**', '/a/x/y', false],
    ['/a/b*', '/a/b', true],
    ['/a/?', '/a/x', true],
    ['/a/?', '/a/xy', false],
    ['/a/[a-c]x', '/a/bx', true],
    ['/a/[!a-c]x', '/a/bx', false],
    ['/a/[^a-c]x', '/a/dx', true],
    ['/a/[-a]', '/a/-', true],
    ['/a/{b,c/e}/d', '/a/c/e/d', true],
    ['/a/{b,{c,d}}', '/a/d', true],
    ['/a/\\*', '/a/*', true],
    ['/a/\\*', '/a/x', false],
    ['/a/*', '/a/.hidden', true],
  ])('%s against %s: %s', (glob, path, expected) => {
    expect(faultWithPath(glob)(path)).toBe(expected);
  });

  it.each([
    ['/a/(b|c)', 'extglobs'],
    ['/a/+(b|c)', 'extglobs'],
    ['/a/[[:alpha:]]', 'POSIX'],
    ['/a/{1..3}', 'two or more alternatives'],
    ['/a/[z-a]', 'backwards'],
    ['/a/[b/c]', 'cannot hold /'],
    ['/a/\\', 'lone'],
    ['/a/b}', 'has no {'],
    [`/${'{a,b}'.repeat(6)}`, 'more than 32 alternatives'],
  ])('%s is refused (%s)', (path, why) => {
    const parsed = parseFaultSpec({ match: { path }, response: { kind: 'reset' } });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.errors).toEqual([
        expect.objectContaining({ in: 'match.path', message: expect.stringContaining(why) }),
      ]);
  });
});
