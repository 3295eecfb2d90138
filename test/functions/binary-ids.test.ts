// base64 and to_char(binary) (binary.ts), to_uuid / to_long128 / to_long256 / netmask
// (make-values.ts) and the generators of random-values.ts, called through the registry:
// exact text for known bytes and words, bind-time checks, and a seeded registry's repeatability.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KX, strs } from './helpers.js';
import type { ColumnVector, VarVector } from '../../lib/core/column-vector.js';
import { renderAt } from '../../lib/core/render.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import { hexDump } from '../../lib/functions/binary.js';
import { netmaskOf } from '../../lib/functions/make-values.js';
import type { BindArg } from '../../lib/functions/registry.js';
import type { SqlType } from '../../lib/core/sql-type.js';
import { textAt } from '../../lib/core/vec.js';

const registry = createFunctionRegistry({ randomSeed: 11 });

function binaries(rows: readonly (number[] | null)[]): VarVector {
  const offsets = new Int32Array(rows.length + 1);
  const nulls = new Uint8Array(rows.length);
  const all: number[] = [];
  rows.forEach((r, i) => {
    if (r === null) nulls[i] = 1;
    else all.push(...r);
    offsets[i + 1] = all.length;
  });
  return { kind: 'var', type: 'BINARY', bytes: Uint8Array.from(all), offsets, nulls };
}

/** Exact int64 LONG vector from bigints (null: NULL). */
function exactLongs(xs: readonly (bigint | null)[]): ColumnVector {
  const big = BigInt64Array.from(xs, (x) => x ?? -(2n ** 63n));
  const exact = new Int32Array(big.buffer);
  return { kind: 'fixed', type: 'LONG', data: Float64Array.from(big, (x) => Number(x)), exact };
}

const arg = (type: SqlType, value: number | string | null, pos = 0): BindArg => ({
  type,
  value,
  pos,
  constant: true,
  vector: undefined,
});

/** Resolves `name`, binds its constant args and runs it over `vectors` (n rows). */
function call(name: string, args: BindArg[], vectors: ColumnVector[], n: number, reg = registry): ColumnVector {
  const fn = reg.resolveScalar(
    name,
    args.map((a) => a.type),
    0,
  );
  const bound = fn.bind?.(args, 7);
  return (bound?.kernel ?? fn.kernel)(vectors, n, KX);
}

const rendered = (v: ColumnVector, n: number): (string | null)[] => Array.from({ length: n }, (_, i) => renderAt(v, i));

test('to_char(binary) is 16 bytes a line led by the hex offset, and NULL for NULL', () => {
  const twenty = Array.from({ length: 20 }, (_, k) => k * 13);
  assert.equal(
    hexDump(Uint8Array.from(twenty)),
    '00000000 00 0d 1a 27 34 41 4e 5b 68 75 82 8f 9c a9 b6 c3\n00000010 d0 dd ea f7',
  );
  assert.equal(hexDump(Uint8Array.from([0xee, 0x41, 0x1d, 0x15, 0x55])), '00000000 ee 41 1d 15 55');
  assert.equal(hexDump(new Uint8Array(0)), '');
  const out = call('to_char', [arg('BINARY', null)], [binaries([[1, 2], null])], 2);
  assert.deepEqual([textAt(out, 0), textAt(out, 1)], ['00000000 01 02', null]);
});

test('base64 encodes at most maxLength input bytes; NULL is the empty string; maxLength must be above 0', () => {
  const data = binaries([[...Buffer.from('hello world')], null]);
  const three = call('base64', [arg('BINARY', null), arg('INT', 3)], [data, data], 2);
  assert.deepEqual([textAt(three, 0), textAt(three, 1)], ['aGVs', '']);
  const all = call('base64', [arg('BINARY', null), arg('INT', 100)], [data, data], 1);
  assert.equal(textAt(all, 0), 'aGVsbG8gd29ybGQ=');
  assert.throws(
    () => call('base64', [arg('BINARY', null), arg('INT', 0, 25)], [], 0),
    (e: unknown) =>
      (e as { position?: number }).position === 25 && /maxLength has to be greater than 0/.test(String(e)),
  );
});

test('to_uuid, to_long128 and to_long256 place the words exactly, least significant first', () => {
  const lo = exactLongs([2n, -(2n ** 63n), 0x0123456789abcdefn]);
  const hi = exactLongs([1n, -(2n ** 63n), -2n]);
  assert.deepEqual(rendered(call('to_uuid', [arg('LONG', null), arg('LONG', null)], [lo, hi], 3), 3), [
    '00000000-0000-0001-0000-000000000002',
    null,
    'ffffffff-ffff-fffe-0123-456789abcdef',
  ]);
  const l128 = call('to_long128', [arg('LONG', null), arg('LONG', null)], [lo, hi], 3);
  assert.equal(l128.type, 'LONG128');
  assert.equal(renderAt(l128, 2), 'ffffffff-ffff-fffe-0123-456789abcdef');
  const w = (xs: (bigint | null)[]): ColumnVector => exactLongs(xs);
  const l256 = call(
    'to_long256',
    [arg('LONG', null), arg('LONG', null), arg('LONG', null), arg('LONG', null)],
    [w([1n, null, 0n]), w([0n, null, 1n]), w([0n, null, 0n]), w([0n, null, 0x7fn])],
    3,
  );
  assert.deepEqual(rendered(l256, 3), ['0x01', null, `0x7f${'0'.repeat(31)}1${'0'.repeat(16)}`]);
});

test('netmask is the mask of the prefix after the slash; none is one address; a bad prefix is NULL (0)', () => {
  assert.equal(netmaskOf('22.59.138.9/8') >>> 0, 0xff000000);
  assert.equal(netmaskOf('2.2/16') >>> 0, 0xffff0000);
  assert.equal(netmaskOf('1.2.3.4/32') >>> 0, 0xffffffff);
  assert.equal(netmaskOf('1.2.3.4') >>> 0, 0xffffffff);
  for (const bad of ['1.2.3.4/33', '1.2.3.4/', '1.2.3.4/x', '1.2.3.4/-1', '1.2.3.4/ 8', '1/0'])
    assert.equal(netmaskOf(bad), 0, bad);
});

test('a seeded registry repeats rnd_long256, rnd_bin and rnd_decimal values', () => {
  const run = (): (string | null)[] => {
    const reg = createFunctionRegistry({ randomSeed: 99 });
    const a = call('rnd_long256', [], [], 3, reg);
    const b = call('rnd_bin', [arg('LONG', 1), arg('LONG', 4), arg('INT', 2)], [], 5, reg);
    const d = call('rnd_decimal', [arg('INT', 30), arg('INT', 4), arg('INT', 0)], [], 3, reg);
    return [...rendered(a, 3), ...Array.from({ length: 5 }, (_, i) => hexOrNull(b, i)), ...rendered(d, 3)];
  };
  assert.deepEqual(run(), run());
});

function hexOrNull(v: ColumnVector, i: number): string | null {
  const b = v as VarVector;
  return b.nulls?.[i] ? null : hexDump(b.bytes.subarray(b.offsets[i]!, b.offsets[i + 1]!));
}

test('rnd_bin makes lengths in [min, max] and rnd_long256(n) at most n values', () => {
  const b = call('rnd_bin', [arg('LONG', 3), arg('LONG', 6), arg('INT', 0)], [], 500) as VarVector;
  const lengths = new Set(Array.from({ length: 500 }, (_, i) => b.offsets[i + 1]! - b.offsets[i]!));
  assert.deepEqual([...lengths].sort(), [3, 4, 5, 6]);
  assert.equal(b.nulls, null);
  const fixed = call('rnd_bin', [], [], 10) as VarVector;
  assert.equal(fixed.bytes.length, 320);
  const pool = call('rnd_long256', [arg('INT', 4)], [], 1000);
  assert.ok(new Set(rendered(pool, 1000)).size <= 4);
});

test('netmask, list, rnd_geohash and timestamp_shuffle through the registry', () => {
  const masks = call('netmask', [arg('STRING', null)], [strs(['10.0.0.0/12', null, '10.0.0.1'])], 3);
  assert.deepEqual(rendered(masks, 3), ['255.240.0.0', null, '255.255.255.255']);
  const cycle = call('list', [arg('STRING', 'a', 5), arg('STRING', 'b', 10), arg('STRING', 'a', 15)], [], 4);
  assert.deepEqual(rendered(cycle, 4), ['a', 'b', 'a', 'a']);
  const fn = registry.resolveScalar('rnd_geohash', ['INT'], 0);
  assert.equal(fn.bind?.([arg('INT', 12)], 0)?.type, 'GEOHASH(12b)');
  assert.throws(() => fn.bind?.([arg('INT', 61, 19)], 0), /precision must be in \[1\.\.60\] range/);
  const shuffled = call('timestamp_shuffle', [arg('TIMESTAMP', 10), arg('TIMESTAMP', 5)], [], 200);
  const micros = Array.from((shuffled as { data: Float64Array }).data);
  assert.ok(micros.every((x) => x >= 5 && x <= 10));
  assert.equal(new Set(micros).size, 6);
});
