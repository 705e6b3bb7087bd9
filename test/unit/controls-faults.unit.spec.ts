import { FaultRegistry } from '../../src/controls/application/fault-registry';
import { ControlsEventType, type FaultEvent, type FaultSet } from '../../src/controls/domain/fault-events';
import { parseFaultSpec } from '../../src/controls/domain/fault-spec';
import { appFaultsDecider, MAX_FAULTS_PER_APP } from '../../src/controls/domain/faults.decider';
import { requestPath } from '../../src/controls/http/fault-injection';
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
