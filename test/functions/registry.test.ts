// The registry createFunctionRegistry() builds: every family is registered
// under lower-case names, and unknown names or argument types give
// QuestDB-style messages at the caller's position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGISTRY } from './helpers.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { COLUMN_TYPES } from '../../lib/core/column-type.js';

test('registers operators, casts, scalars, generators and aggregates', () => {
  const names = new Set(REGISTRY.scalarNames());
  for (const n of [
    '+',
    '-',
    '*',
    '/',
    '%',
    'neg',
    '=',
    '!=',
    '<',
    '<=',
    '>',
    '>=',
    'and',
    'or',
    'not',
    '||',
    'like',
    'ilike',
    '~',
    '!~',
    'is_null',
    'is_not_null',
    'in_list',
    'between',
    'case',
    'coalesce',
    'nullif',
    'abs',
    'round',
    'floor',
    'ceil',
    'ceiling',
    'sqrt',
    'power',
    'pow',
    'ln',
    'log',
    'exp',
    'sign',
    'length',
    'upper',
    'lower',
    'concat',
    'substring',
    'left',
    'right',
    'strpos',
    'position',
    'replace',
    'trim',
    'ltrim',
    'rtrim',
    'split_part',
    'starts_with',
    'regexp_replace',
    'now',
    'systimestamp',
    'today',
    'yesterday',
    'tomorrow',
    'to_timestamp',
    'to_str',
    'dateadd',
    'datediff',
    'extract',
    'year',
    'month',
    'day',
    'hour',
    'minute',
    'second',
    'day_of_week',
    'timestamp_floor',
    'rnd_int',
    'rnd_long',
    'rnd_double',
    'rnd_float',
    'rnd_boolean',
    'rnd_char',
    'rnd_symbol',
    'rnd_str',
    'rnd_varchar',
    'rnd_timestamp',
    'timestamp_sequence',
  ]) {
    assert.ok(names.has(n), n);
  }
  for (const t of COLUMN_TYPES) assert.ok(REGISTRY.hasScalar(`cast_${t}`), t);
  for (const a of [
    'count',
    'count_distinct',
    'sum',
    'avg',
    'min',
    'max',
    'first',
    'last',
    'stddev_samp',
    'stddev',
    'var_samp',
    'variance',
    'stddev_pop',
    'var_pop',
    'ksum',
    'nsum',
  ]) {
    assert.ok(REGISTRY.isAggregate(a), a);
  }
  assert.ok(REGISTRY.aggregateNames().length >= 18);
  assert.ok(REGISTRY.scalarNames().every((n) => n === n.toLowerCase()));
});

test('unknown names and rejected argument types throw SQL errors at the given position', () => {
  try {
    REGISTRY.resolveScalar('nope', ['INT', 'STRING'], 12);
    assert.fail('resolved');
  } catch (e) {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, 'SQL');
    assert.equal(e.position, 12);
    assert.match(e.message, /^unknown function name: nope/);
  }
  try {
    REGISTRY.resolveScalar('ABS', ['BOOLEAN'], 3);
    assert.fail('resolved');
  } catch (e) {
    assert.ok(e instanceof SvcError);
    assert.equal(e.position, 3);
    assert.equal(e.message, 'there is no matching function `abs` with the argument types: (BOOLEAN)');
  }
});

test('marks clock and random functions as not deterministic and the rest as deterministic', () => {
  assert.equal(REGISTRY.resolveScalar('rnd_int', [], 0).deterministic, false);
  assert.equal(REGISTRY.resolveScalar('now', [], 0).deterministic, false);
  assert.equal(REGISTRY.resolveScalar('+', ['INT', 'INT'], 0).deterministic, true);
  assert.equal(REGISTRY.resolveScalar('cast_string', ['INT'], 0).deterministic, true);
  assert.deepEqual(REGISTRY.resolveScalar('+', ['INT', 'NULL'], 0).argTypes, ['INT', 'INT']);
});

test('every registered scalar and aggregate is called by name in some test of this folder', () => {
  const dir = fileURLToPath(new URL('../../../test/functions/', import.meta.url));
  const source = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
  const missing = [...REGISTRY.scalarNames(), ...REGISTRY.aggregateNames()].filter((n) => {
    if (n.startsWith('cast_'))
      return !new RegExp(`cast_${n.slice(5)}'|'${n.slice(5).toUpperCase()}'`, 'i').test(source);
    return !source.includes(`'${n}'`);
  });
  assert.deepEqual(missing, []);
});
