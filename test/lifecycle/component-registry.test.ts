import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ComponentRegistry,
  STATES,
  canTransition,
  type ComponentSpec,
} from '../../lib/lifecycle/component-registry.js';

function comp(
  name: string,
  log: string[],
  opts: Partial<ComponentSpec> & { fail?: boolean; degraded?: boolean } = {},
): ComponentSpec {
  return {
    name,
    hardRequiredDependencies: opts.hardRequiredDependencies ?? [],
    softDependencies: opts.softDependencies ?? [],
    async start() {
      log.push(`start ${name}`);
      if (opts.fail) throw new Error(`${name} broke`);
      return opts.degraded ? 'DEGRADED' : undefined;
    },
    async stop() {
      log.push(`stop ${name}`);
    },
  };
}

test('starts in registration order and stops in reverse', async () => {
  const log: string[] = [];
  const r = new ComponentRegistry();
  r.register(comp('a', log));
  r.register(comp('b', log, { hardRequiredDependencies: ['a'] }));
  r.register(comp('c', log, { softDependencies: ['b'] }));
  assert.deepEqual(await r.startAll(), { failed: [], notStarted: [] });
  assert.deepEqual(
    r.report().components.map((c) => [c.name, c.state]),
    [
      ['a', 'READY'],
      ['b', 'READY'],
      ['c', 'READY'],
    ],
  );
  await r.stopAll();
  assert.deepEqual(log, ['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  assert.deepEqual(
    r.report().components.map((c) => c.state),
    ['STOPPED', 'STOPPED', 'STOPPED'],
  );
});

test('does not start a component whose hard dependency failed, but does start one with a failed soft dependency', async () => {
  const log: string[] = [];
  const transitions: string[] = [];
  const r = new ComponentRegistry({ onTransition: (n, f, t) => transitions.push(`${n}:${f}->${t}`) });
  r.register(comp('storage', log, { fail: true }));
  r.register(comp('http', log, { hardRequiredDependencies: ['storage'] }));
  r.register(comp('health', log, { softDependencies: ['storage'] }));
  assert.deepEqual(await r.startAll(), { failed: ['storage'], notStarted: ['http'] });
  assert.deepEqual(log, ['start storage', 'start health']);
  assert.equal(r.state('storage'), 'FAILED');
  assert.equal(r.state('http'), 'INIT');
  assert.equal(r.state('health'), 'READY');
  assert.match((r.failureOf('storage') as Error).message, /storage broke/);
  await r.stopAll();
  assert.deepEqual(log, ['start storage', 'start health', 'stop health'], 'a failed component is not stopped again');
  assert.ok(transitions.includes('http:INIT->STOPPED'));
  assert.ok(transitions.includes('storage:FAILED->STOPPING'));
});

test('a component may start DEGRADED, report progress, and move between READY and DEGRADED', async () => {
  const r = new ComponentRegistry();
  let handle: Parameters<ComponentSpec['start']>[0] | undefined;
  let changes = 0;
  r.subscribe(() => changes++);
  r.register({
    name: 'storage',
    async start(h) {
      handle = h;
      h.setProgress({ task: 'recovering tables', done: 1, total: 3, unit: 'tables' });
      return 'DEGRADED';
    },
    async stop() {},
  });
  await r.startAll();
  assert.equal(r.state('storage'), 'DEGRADED');
  assert.deepEqual(r.report().components[0]!.latestProgress, {
    task: 'recovering tables',
    done: 1,
    total: 3,
    unit: 'tables',
  });
  handle!.setProgress(null);
  handle!.setHealthy(true);
  assert.equal(r.state('storage'), 'READY');
  assert.equal(r.report().components[0]!.latestProgress, null);
  assert.ok(changes >= 4);
});

test('rejects dependencies on components registered later or not at all, and duplicate names', () => {
  const r = new ComponentRegistry();
  assert.throws(() => r.register(comp('a', [], { hardRequiredDependencies: ['b'] })), /depends on b/);
  r.register(comp('b', []));
  assert.throws(() => r.register(comp('b', [])), /already registered/);
});

test('allows exactly the documented transitions', () => {
  const allowed = STATES.flatMap((f) => STATES.filter((t) => canTransition(f, t)).map((t) => `${f}->${t}`));
  assert.deepEqual(allowed.sort(), [
    'DEGRADED->FAILED',
    'DEGRADED->READY',
    'DEGRADED->STOPPING',
    'DEGRADED->SWITCHING',
    'FAILED->STOPPED',
    'FAILED->STOPPING',
    'INIT->STARTING',
    'INIT->STOPPED',
    'READY->DEGRADED',
    'READY->FAILED',
    'READY->STOPPING',
    'READY->SWITCHING',
    'STARTING->DEGRADED',
    'STARTING->FAILED',
    'STARTING->READY',
    'STARTING->STOPPING',
    'STOPPING->FAILED',
    'STOPPING->STOPPED',
    'SWITCHING->DEGRADED',
    'SWITCHING->FAILED',
    'SWITCHING->READY',
  ]);
});
