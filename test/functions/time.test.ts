// Time functions through the registry: clocks, pattern parsing/printing,
// dateadd/datediff, extract and the part functions, flooring and truncation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KX, call, chars, ints, longs, resolveError, resultType, run, strs, ts, values, REGISTRY } from './helpers.js';
import { formatTimestamp, parseTimestamp } from '../../lib/core/datetime.js';
import { standaloneKernelContext } from '../../lib/functions/registry.js';
import type { FixedVector } from '../../lib/core/column-vector.js';
import { intervalHi, intervalLo } from '../../lib/core/interval-values.js';

const iso = (v: unknown[]): (string | null)[] => v.map((x) => (x === null ? null : formatTimestamp(x as number)));
const rep = (s: string, k: number): ReturnType<typeof strs> => strs(new Array(k).fill(s));

test("now() is the statement's time its kernel context carries; systimestamp() and sysdate() read the clock", async () => {
  const now = REGISTRY.resolveScalar('now', [], 0);
  assert.equal(now.type, 'TIMESTAMP');
  assert.equal(now.deterministic, false);
  const a = values(now.kernel([], 3, KX));
  await new Promise((r) => setTimeout(r, 5));
  const b = values(now.kernel([], 2, KX));
  assert.deepEqual([...a, ...b], new Array(5).fill(KX.statementMicros));
  assert.ok(KX.statementMicros <= Date.now() * 1000 + 1000 && KX.statementMicros > Date.now() * 1000 - 600_000_000);
  const fixed = parseTimestamp('2024-02-29T12:34:56.789012Z')!;
  assert.deepEqual(values(now.kernel([], 2, standaloneKernelContext(fixed))), [fixed, fixed]);
  // today() and its neighbours are days around the statement's time too: INTERVALs, the last microsecond included.
  const day = (name: string, kx = KX): [number, number] => {
    const v = REGISTRY.resolveScalar(name, [], 0).kernel([], 1, kx) as FixedVector;
    assert.equal(v.type, 'INTERVAL');
    const b = v.data as Uint8Array;
    return [intervalLo(b, 0), intervalHi(b, 0)];
  };
  assert.deepEqual(day('today', standaloneKernelContext(fixed)).map(formatTimestamp), [
    '2024-02-29T00:00:00.000000Z',
    '2024-02-29T23:59:59.999999Z',
  ]);
  assert.deepEqual(day('tomorrow', standaloneKernelContext(fixed)).map(formatTimestamp), [
    '2024-03-01T00:00:00.000000Z',
    '2024-03-01T23:59:59.999999Z',
  ]);
  const sys = REGISTRY.resolveScalar('systimestamp', [], 0);
  const s1 = values(sys.kernel([], 1, KX))[0] as number;
  await new Promise((r) => setTimeout(r, 5));
  const s2 = values(sys.kernel([], 1, KX))[0] as number;
  assert.ok(s2 > s1);
  assert.equal(resultType('sysdate', []), 'DATE');
  const today = day('today')[0];
  assert.equal(formatTimestamp(today).slice(10), 'T00:00:00.000000Z');
  assert.ok(Date.now() * 1000 - today < 86_400_000_000);
  // yesterday() and tomorrow() start on the neighbouring days' first microseconds.
  const yesterday = day('yesterday')[0];
  const tomorrow = day('tomorrow')[0];
  assert.equal(today - yesterday, 86_400_000_000);
  assert.equal(tomorrow - today, 86_400_000_000);
  assert.deepEqual(values(now.kernel([], 0, KX)), []);
});

test('to_timestamp and to_date parse with a pattern; NULL when the text does not match', () => {
  assert.deepEqual(
    iso(
      call('to_timestamp', [strs(['2020-03-01:15:43:21.127329', 'bad', null]), rep('yyyy-MM-dd:HH:mm:ss.SSSUUU', 3)]),
    ),
    ['2020-03-01T15:43:21.127329Z', null, null],
  );
  assert.deepEqual(call('to_date', [strs(['2020-03-01:15:43:21']), strs(['yyyy-MM-dd:HH:mm:ss'])]), [
    Date.parse('2020-03-01T15:43:21Z'),
  ]);
  assert.deepEqual(call('to_timestamp', [strs(['2020', '21']), strs(['yyyy', 'yy'])]).length, 2);
  assert.equal(resultType('to_date', ['STRING', 'STRING']), 'DATE');
});

test('to_str prints timestamps and dates with a pattern', () => {
  const t = ts(['2020-03-04T05:06:07.123456Z', null]);
  assert.deepEqual(call('to_str', [t, rep('yyyy-MM-dd', 2)]), ['2020-03-04', null]);
  assert.deepEqual(call('to_str', [t, rep('EE, d MMM yyyy HH:mm:ss.SSSUUU', 2)]), [
    'Wednesday, 4 Mar 2020 05:06:07.123456',
    null,
  ]);
  assert.deepEqual(call('to_str', [longs([Date.parse('2020-03-04T00:00:00Z')], 'DATE'), strs(['yyyy-MM-ddTHH'])]), [
    '2020-03-04T00',
  ]);
  assert.equal(resultType('to_str', ['TIMESTAMP', 'STRING']), 'STRING');
});

test('dateadd adds calendar and fixed units to TIMESTAMP', () => {
  const t = ts(['2020-01-31T10:00:00Z', '2020-01-31T10:00:00Z', null]);
  const add = (u: string, k: number): (string | null)[] => iso(call('dateadd', [rep(u, 3), ints([k, k, k]), t]));
  assert.deepEqual(add('M', 1), ['2020-02-29T10:00:00.000000Z', '2020-02-29T10:00:00.000000Z', null]);
  assert.deepEqual(add('y', -1)[0], '2019-01-31T10:00:00.000000Z');
  assert.deepEqual(add('w', 1)[0], '2020-02-07T10:00:00.000000Z');
  assert.deepEqual(add('d', 2)[0], '2020-02-02T10:00:00.000000Z');
  assert.deepEqual(add('h', -11)[0], '2020-01-30T23:00:00.000000Z');
  assert.deepEqual(add('m', 30)[0], '2020-01-31T10:30:00.000000Z');
  assert.deepEqual(add('s', 1)[0], '2020-01-31T10:00:01.000000Z');
  assert.deepEqual(add('T', 1)[0], '2020-01-31T10:00:00.001000Z');
  assert.deepEqual(add('u', 1)[0], '2020-01-31T10:00:00.000001Z');
  assert.deepEqual(add('x', 1)[0], null);
  assert.deepEqual(iso(call('dateadd', [chars(['h']), ints([1]), longs([0], 'DATE')])), [
    '1970-01-01T01:00:00.000000Z',
  ]);
  assert.deepEqual(iso(call('dateadd', [strs(['d']), ints([1]), strs(['2024-02-28'])])), [
    '2024-02-29T00:00:00.000000Z',
  ]);
});

test('datediff counts whole units between two timestamps, in either order', () => {
  const diff = (u: string, a: string, b: string): unknown => call('datediff', [strs([u]), ts([a]), ts([b])])[0];
  assert.equal(diff('d', '2020-01-23', '2020-01-27'), 4);
  assert.equal(diff('d', '2020-01-27', '2020-01-23'), 4);
  assert.equal(diff('M', '2020-01-23', '2020-02-27'), 1);
  assert.equal(diff('M', '2020-01-23', '2020-02-22'), 0);
  assert.equal(diff('y', '2020-02-29', '2021-02-28'), 0);
  assert.equal(diff('y', '2020-01-01', '2023-06-01'), 3);
  assert.equal(diff('h', '2020-01-01T00:00:00', '2020-01-01T05:59:59'), 5);
  assert.equal(diff('w', '2020-01-01', '2020-01-15'), 2);
  assert.equal(diff('T', '2020-01-01T00:00:00', '2020-01-01T00:00:01.5'), 1500);
  assert.deepEqual(call('datediff', [strs(['d']), ts([null]), ts(['2020-01-01'])]), [null]);
  assert.equal(resultType('datediff', ['STRING', 'TIMESTAMP', 'DATE']), 'LONG');
});

test('extract returns the PostgreSQL parts QuestDB supports', () => {
  const t = ts(['2023-03-11T22:00:30.555555Z']);
  const ex = (part: string): unknown => call('extract', [strs([part]), t])[0];
  assert.equal(ex('millennium'), 3);
  assert.equal(ex('century'), 21);
  assert.equal(ex('decade'), 202);
  assert.equal(ex('year'), 2023);
  assert.equal(ex('quarter'), 1);
  assert.equal(ex('month'), 3);
  assert.equal(ex('week'), 10);
  assert.equal(ex('doy'), 70);
  assert.equal(ex('dow'), 6);
  assert.equal(ex('isodow'), 6);
  assert.equal(ex('day'), 11);
  assert.equal(ex('hour'), 22);
  assert.equal(ex('minute'), 0);
  assert.equal(ex('second'), 30);
  // QuestDB: the fraction of the second alone (PostgreSQL would count the seconds too).
  assert.equal(ex('milliseconds'), 555);
  assert.equal(ex('microseconds'), 555555);
  assert.equal(ex('EPOCH'), Math.floor(parseTimestamp('2023-03-11T22:00:30Z')! / 1e6));
  assert.equal(call('extract', [strs(['isoyear']), ts(['2021-01-01'])])[0], 2020);
  assert.deepEqual(call('extract', [strs(['year']), ts([null])]), [null]);
  assert.throws(() => call('extract', [strs(['fortnight']), t]), /unsupported part 'fortnight'/);
  assert.equal(resultType('extract', ['STRING', 'DATE']), 'INT');
});

test('year, month, day, hour, minute, second, millis, micros and day_of_week', () => {
  const t = ts(['2020-03-01T15:43:21.123456Z', null]);
  const part = (name: string): unknown[] => call(name, [t]);
  assert.deepEqual(part('year'), [2020, null]);
  assert.deepEqual(part('month'), [3, null]);
  assert.deepEqual(part('day'), [1, null]);
  assert.deepEqual(part('hour'), [15, null]);
  assert.deepEqual(part('minute'), [43, null]);
  assert.deepEqual(part('second'), [21, null]);
  assert.deepEqual(part('millis'), [123, null]);
  assert.deepEqual(part('micros'), [456, null]);
  assert.deepEqual(part('day_of_week'), [7, null]);
  assert.deepEqual(part('day_of_week_sunday_first'), [1, null]);
  assert.deepEqual(part('days_in_month'), [31, null]);
  assert.deepEqual(part('week_of_year'), [9, null]);
  assert.deepEqual(part('is_leap_year'), [true, false]);
  assert.deepEqual(call('year', [ts(['1969-12-31T23:59:59.999999Z'])]), [1969]);
  assert.deepEqual(call('year', [longs([0], 'DATE')]), [1970]);
});

test('timestamp_floor floors to strides from the epoch or an origin; timestamp_ceil rounds up', () => {
  assert.deepEqual(iso(call('timestamp_floor', [strs(['5d']), strs(['2018-01-01'])])), ['2017-12-30T00:00:00.000000Z']);
  assert.deepEqual(iso(call('timestamp_floor', [strs(['5d']), strs(['2018-01-01']), strs(['2018-01-01'])])), [
    '2018-01-01T00:00:00.000000Z',
  ]);
  const t = ts(['2016-02-10T16:18:22.862145Z', null]);
  const fl = (u: string): (string | null)[] => iso(call('timestamp_floor', [chars([u, u]), t]));
  assert.deepEqual(fl('T'), ['2016-02-10T16:18:22.862000Z', null]);
  assert.deepEqual(fl('s')[0], '2016-02-10T16:18:22.000000Z');
  assert.deepEqual(fl('m')[0], '2016-02-10T16:18:00.000000Z');
  assert.deepEqual(fl('h')[0], '2016-02-10T16:00:00.000000Z');
  assert.deepEqual(fl('d')[0], '2016-02-10T00:00:00.000000Z');
  assert.deepEqual(fl('M')[0], '2016-02-01T00:00:00.000000Z');
  assert.deepEqual(fl('y')[0], '2016-01-01T00:00:00.000000Z');
  const ce = (u: string): (string | null)[] => iso(call('timestamp_ceil', [strs([u, u]), t]));
  assert.deepEqual(ce('T'), ['2016-02-10T16:18:22.863000Z', null]);
  assert.deepEqual(ce('M')[0], '2016-03-01T00:00:00.000000Z');
  assert.deepEqual(iso(call('timestamp_ceil', [strs(['d']), ts(['2016-02-10'])])), ['2016-02-10T00:00:00.000000Z']);
  assert.throws(
    () => call('timestamp_floor', [strs(['5q']), t.kind === 'fixed' ? ts(['2016-02-10']) : t]),
    /invalid unit/,
  );
  assert.deepEqual(call('timestamp_floor', [strs([]), ts([])], undefined, 0), []);
});

test('date_trunc truncates to calendar units', () => {
  const t = ts(['2022-08-11T22:00:30.555555Z']);
  const tr = (u: string): string | null => iso(call('date_trunc', [strs([u]), t]))[0]!;
  assert.equal(tr('hour'), '2022-08-11T22:00:00.000000Z');
  assert.equal(tr('day'), '2022-08-11T00:00:00.000000Z');
  assert.equal(tr('week'), '2022-08-08T00:00:00.000000Z');
  assert.equal(tr('month'), '2022-08-01T00:00:00.000000Z');
  assert.equal(tr('quarter'), '2022-07-01T00:00:00.000000Z');
  assert.equal(tr('year'), '2022-01-01T00:00:00.000000Z');
  assert.equal(tr('decade'), '2020-01-01T00:00:00.000000Z');
  assert.equal(tr('century'), '2001-01-01T00:00:00.000000Z');
  assert.equal(tr('millennium'), '2001-01-01T00:00:00.000000Z');
  assert.equal(tr('millisecond'), '2022-08-11T22:00:30.555000Z');
  assert.throws(() => call('date_trunc', [strs(['eon']), t]), /invalid unit/);
});

test('rejects wrong argument types', () => {
  assert.match(resolveError('dateadd', ['STRING', 'DOUBLE', 'TIMESTAMP']), /no matching function `dateadd`/);
  assert.match(resolveError('year', ['BOOLEAN']), /no matching function `year`/); // INT and LONG are read as timestamps, as QuestDB does
  assert.match(resolveError('now', ['INT']), /no matching function `now`/);
  assert.equal(run('hour', [ts([])], undefined, 0).type, 'INT');
});
