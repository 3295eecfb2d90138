// Spatial functions (QuestDB's Spatial page): make_geohash(lon, lat, bits), the geohash of a point
// with `bits` bits of precision (1..60, a constant: it is the result's type, GEOHASH(<bits>)).
// Coordinates outside [-180, 180] / [-90, 90] are an error when they are constants, NULL when
// they come from rows, as the page says.
import { geohashType, typeInfo, type ColumnType } from '../core/column-type.js';
import { nullVector, type FixedVector } from '../core/column-vector.js';
import { geohashOfPoint, putGeohash } from '../core/geohash.js';
import { asDoubles } from '../core/vec.js';
import { argError, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar } from './signature.js';

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

export function registerGeo(registry: FunctionRegistry): void {
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
