// Geohash functions (QuestDB's Spatial page): make_geohash(lon, lat, bits), the geohash of a point
// with `bits` bits of precision (1..60, a constant: it is the result's type, GEOHASH(<bits>)).
// Coordinates outside [-180, 180] / [-90, 90] are an error when they are constants, NULL when
// they come from rows, as the page says. `within`: the WITHIN operator (`g WITHIN (#ezz, #u33d8)`,
// bound by sql/bind-expr.ts), whether a geohash lies in one of the listed constant cells.
import { geohashBits, geohashType, typeInfo, typeKind, type ColumnType } from '../core/column-type.js';
import { nullVector, type FixedVector } from '../core/column-vector.js';
import { geohashAt, geohashOfPoint, putGeohash } from '../core/geohash.js';
import { asDoubles, boolVector } from '../core/vec.js';
import { argError, type BindArg, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar } from './signature.js';
import type { SqlType } from '../core/sql-type.js';

const validLon = (x: number): boolean => x >= -180 && x <= 180;
const validLat = (x: number): boolean => x >= -90 && x <= 90;

function makeGeohashKernel(type: ColumnType, bits: number): Kernel {
  const w = typeInfo(type).width;
  return (args, n) => {
    const lon = asDoubles(args[0]!);
    const lat = asDoubles(args[1]!);
    const out = nullVector(type, n) as FixedVector;
    const b = out.data as Uint8Array;
    for (let i = 0; i < n; i++) {
      const x = lon[i]!;
      const y = lat[i]!;
      if (validLon(x) && validLat(y)) putGeohash(b, i, w, geohashOfPoint(x, y, bits));
    }
    return out;
  };
}

/** A cell as the range of the column's values inside it: [lo, hi] as (high 32 bits, low 32 bits) pairs. */
type Cell = readonly [loHi: number, loLo: number, hiHi: number, hiLo: number];

const TWO32 = 2n ** 32n;

/**
 * The values of a `colBits`-bit geohash inside the cell of the constant `a` (its bits a prefix of
 * theirs), with QuestDB's errors at the constant: NULL, not a constant GEOHASH, more bits than the column.
 */
function cellOf(a: BindArg, colBits: number): Cell {
  if (a.type === 'NULL' || (a.constant && a.value === null)) throw argError('GeoHash value expected', a.pos);
  if (!a.constant || typeKind(a.type) !== 'GEOHASH' || a.vector === undefined || a.vector.kind !== 'fixed')
    throw argError('GeoHash const function expected', a.pos);
  const bits = geohashBits(a.type);
  const prefix = geohashAt(a.vector.data as Uint8Array, 0, typeInfo(a.type).width);
  if (prefix === null) throw argError('GeoHash value expected', a.pos);
  if (bits > colBits) throw argError('GeoHash prefix precision mismatch', a.pos);
  const shift = BigInt(colBits - bits);
  const lo = prefix << shift;
  const hi = ((prefix + 1n) << shift) - 1n;
  return [Number(lo / TWO32), Number(lo % TWO32), Number(hi / TWO32), Number(hi % TWO32)];
}

/**
 * Row by row: the value (as two 32-bit halves, read from its little-endian bytes) inside any cell.
 * A NULL (every byte 0xff) is above the largest value of its type, so it is inside none.
 */
function withinKernel(type: ColumnType, cells: readonly Cell[]): Kernel {
  const w = typeInfo(type).width;
  return (args, n) => {
    const b = (args[0] as FixedVector).data as Uint8Array;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const at = i * w;
      let lo = 0;
      for (let k = Math.min(w, 4) - 1; k >= 0; k--) lo = lo * 256 + b[at + k]!;
      let hi = 0;
      for (let k = w - 1; k >= 4; k--) hi = hi * 256 + b[at + k]!;
      for (const [aHi, aLo, zHi, zLo] of cells) {
        if ((hi > aHi || (hi === aHi && lo >= aLo)) && (hi < zHi || (hi === zHi && lo <= zLo))) {
          out[i] = 1;
          break;
        }
      }
    }
    return boolVector(out);
  };
}

export function registerGeo(registry: FunctionRegistry): void {
  // within(g, cell, ...): every argument taken as it is; the bind hook checks them with QuestDB's messages.
  const asIs = (t: SqlType): SqlType => t;
  defineScalar(registry, 'within', [
    {
      args: [asIs],
      rest: asIs,
      minRest: 1,
      build: () => ({
        type: 'BOOLEAN',
        kernel: (_args, n) => boolVector(new Uint8Array(n)),
        bind: (args, pos) => {
          const col = args[0]!;
          if (col.type === 'NULL' || typeKind(col.type) !== 'GEOHASH')
            throw argError('GeoHash column type expected', pos);
          const bits = geohashBits(col.type);
          const cells = args.slice(1).map((a) => cellOf(a, bits));
          return { kernel: withinKernel(col.type, cells), runArgs: [0] };
        },
      }),
    },
  ]);
  defineScalar(registry, 'make_geohash', [
    {
      args: [accept.double, accept.double, accept.int],
      build: () => ({
        // The type is the bits': bound below, once the constant is known.
        type: geohashType(60),
        kernel: makeGeohashKernel(geohashType(60), 60),
        bind: (args) => {
          const bits = args[2]!.value;
          if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 1 || bits > 60)
            throw argError('precision must be a constant from 1 to 60 bits', args[2]!.pos);
          const lon = args[0]!.value;
          const lat = args[1]!.value;
          if (typeof lon === 'number' && !validLon(lon))
            throw argError('longitude must be in [-180.0..180.0] range', args[0]!.pos);
          if (typeof lat === 'number' && !validLat(lat))
            throw argError('latitude must be in [-90.0..90.0] range', args[1]!.pos);
          const type = geohashType(bits);
          return { type, kernel: makeGeohashKernel(type, bits) };
        },
      }),
    },
  ]);
}
