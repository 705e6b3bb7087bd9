import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Checkpoints } from '../../src/platform/projections/checkpoints';
import { openReadModelDatabase } from '../../src/platform/projections/read-model-database';
import { ProcessFaults, installProcessFaultHandlers } from '../../src/platform/core/process-faults';
import { personEnv } from '../support/first-run';
import { serviceEnv } from '../support/service-process';
import { EventEmitter } from 'node:events';

describe('8. EVENTSTORE_CONNECTION_STRING of the test run stays out of the services tests spawn', () => {
  const saved = process.env.EVENTSTORE_CONNECTION_STRING;
  beforeEach(() => (process.env.EVENTSTORE_CONNECTION_STRING = 'esdb://127.0.0.1:2113?tls=false'));
  afterEach(() => {
    if (saved === undefined) delete process.env.EVENTSTORE_CONNECTION_STRING;
    else process.env.EVENTSTORE_CONNECTION_STRING = saved;
  });

  it('is not passed on unless the test sets it', () => {
    expect(serviceEnv(3000, { DATA_DIR: '/d' })).not.toHaveProperty('EVENTSTORE_CONNECTION_STRING');
    expect(personEnv({ PORT: '1' })).not.toHaveProperty('EVENTSTORE_CONNECTION_STRING');
    expect(serviceEnv(3000, { EVENTSTORE_CONNECTION_STRING: 'esdb://x:1' }).EVENTSTORE_CONNECTION_STRING).toBe(
      'esdb://x:1',
    );
  });
});

describe('8. the compose file', () => {
  it("publishes EventStoreDB's port 2113 on the host's loopback only", () => {
    const compose = readFileSync(join(__dirname, '..', '..', 'docker', 'docker-compose.yml'), 'utf8');
    const eventstore = compose.slice(compose.indexOf('\n  eventstore:'), compose.indexOf('\n  app:'));
    expect(eventstore).toMatch(/\n {4}ports:\n {6}- '127\.0\.0\.1:2113:2113'\n/);
  });
});

describe('3. checkpoints bound to a store', () => {
  let db: Database.Database;
  let checkpoints: Checkpoints;
  beforeEach(() => {
    db = openReadModelDatabase(':memory:');
    checkpoints = new Checkpoints(db);
  });
  afterEach(() => db.close());

  it('keeps them for the same store and drops them for another one, an empty one, or an unknown one', () => {
    expect(checkpoints.bindToStore('sqlite', 'sqlite:first', 100).foreign).toBe(false);
    checkpoints.save('p', 1, 42);
    expect(checkpoints.bindToStore('sqlite', 'sqlite:first', 100).foreign).toBe(false);
    expect(checkpoints.get('p', 1)).toBe(42);

    expect(checkpoints.bindToStore('eventstoredb', 'eventstoredb:first', 100).foreign).toBe(true);
    expect(checkpoints.get('p', 1)).toBe(-1);

    checkpoints.save('p', 1, 42);
    expect(checkpoints.bindToStore('eventstoredb', null, 0).foreign).toBe(true); // an empty store has no position 42
    expect(checkpoints.get('p', 1)).toBe(-1);

    // Kept before identities were recorded: which store they belong to is unknown.
    checkpoints.save('p', 1, 7);
    db.exec('DELETE FROM projection_store');
    expect(checkpoints.bindToStore('sqlite', 'sqlite:first', 100).foreign).toBe(true);
    expect(checkpoints.get('p', 1)).toBe(-1);
  });

  it('of the same store, drops only the checkpoints past its head (an older backup restored), and says which', () => {
    checkpoints.bindToStore('sqlite', 'sqlite:first', 12);
    checkpoints.save('accounts', 1, 12);
    checkpoints.save('tokens', 1, 6);
    checkpoints.save('cards', 1, 5);
    expect(checkpoints.hasApplied()).toBe(true);
    expect(checkpoints.bindToStore('sqlite', 'sqlite:first', 6)).toEqual({
      foreign: false,
      ahead: [{ name: 'accounts', position: 12 }],
    });
    expect([checkpoints.get('accounts', 1), checkpoints.get('tokens', 1), checkpoints.get('cards', 1)]).toEqual([
      -1, 6, 5,
    ]);
    expect(checkpoints.bindToStore('sqlite', 'sqlite:first', 6)).toEqual({ foreign: false, ahead: [] });
  });

  it('bound while the store was empty, keeps them once its first event names it', () => {
    expect(checkpoints.bindToStore('sqlite', null, 0).foreign).toBe(false);
    checkpoints.save('p', 1, 3);
    expect(checkpoints.bindToStore('sqlite', 'sqlite:first', 100).foreign).toBe(false);
    expect(checkpoints.get('p', 1)).toBe(3);
    expect(checkpoints.bindToStore('sqlite', 'sqlite:other', 100).foreign).toBe(true);
    // ...but not for a store of another kind.
    checkpoints.save('p', 1, 3);
    db.exec("UPDATE projection_store SET identity = 'sqlite:'");
    expect(checkpoints.bindToStore('eventstoredb', 'eventstoredb:x', 100).foreign).toBe(true);
  });
});

describe('1. process fault handlers', () => {
  it('log each fault and keep the first as the reason, for uncaught exceptions too', () => {
    const target = new EventEmitter();
    const faults = new ProcessFaults();
    const lines: string[] = [];
    installProcessFaultHandlers(target, (line) => lines.push(line), faults);
    expect(faults.reason()).toBeNull();
    target.emit('uncaughtException', new Error('boom'));
    target.emit('unhandledRejection', 'plain');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('uncaughtException: boom');
    expect(lines[0]).toContain('Error: boom\n'); // the stack
    expect(faults.reason()).toBe('uncaughtException: boom (and 1 more)');
  });
});
