// QuestDB's planar and lat/lon spatial functions (Spatial page, 9.3): within_box and within_radius on
// plane coordinates; geo_distance_meters and geo_within_radius_latlon on degrees through the
// equirectangular projection (111320 m a degree, longitude scaled by cos(latitude)). The booleans
// are never NULL (a NULL or NaN input is false); the distance is NULL then. Latitudes outside
// [-90, 90] and longitudes outside [-180, 180] are errors at their argument: when bound for
// constants, when the row is reached for row values.
import { formatDouble } from '../core/number-format.js';
import { asDoubles, boolVector, doubleVector } from '../core/vec.js';
import { argError, type BindArg, type FunctionRegistry, type Kernel } from './registry.js';
import { accept, defineScalar } from './signature.js';

/** Metres in a degree of latitude (and of longitude at the equator), QuestDB's constant. */
const METERS_PER_DEGREE = 111320.0;
/** Java's Math.toRadians factor: degrees are multiplied by it (the same rounding as QuestDB). */
const TO_RADIANS = Math.PI / 180;

/** Argument offsets for errors; undefined leaves the error at the call. */
type Positions = readonly (number | undefined)[];

function checkLat(x: number, pos: number | undefined): void {
  if (x < -90 || x > 90) throw argError(`latitude must be between -90 and 90 [value=${formatDouble(x)}]`, pos!);
}

function checkLon(x: number, pos: number | undefined): void {
  if (x < -180 || x > 180) throw argError(`longitude must be between -180 and 180 [value=${formatDouble(x)}]`, pos!);
}

/** A constant argument's number (NULL as NaN), or undefined when the argument varies by row. */
function constNumber(a: BindArg): number | undefined {
  if (!a.constant || a.value === undefined) return undefined;
  return a.value === null ? NaN : Number(a.value);
}

const isNanConst = (x: number | undefined): boolean => x !== undefined && x !== x;

const falseKernel: Kernel = (_args, n) => boolVector(new Uint8Array(n));
const nullDoubleKernel: Kernel = (_args, n) => doubleVector(new Float64Array(n).fill(NaN));

/**
 * within_box(x, y, min_x, min_y, max_x, max_y): inclusive on every edge; an inverted box holds
 * nothing and NaN compares false. Plain comparisons, so -0.0 is inside a box starting at 0.0
 * (QuestDB's sign-bit arithmetic says false there; the mathematical answer is kept).
 */
const withinBox: Kernel = (args, n) => {
  const [x, y, x0, y0, x1, y1] = args.map(asDoubles) as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const a = x[i]!,
      b = y[i]!;
    out[i] = a >= x0[i]! && a <= x1[i]! && b >= y0[i]! && b <= y1[i]! ? 1 : 0;
  }
  return boolVector(out);
};

/** within_radius(x, y, cx, cy, r): the squared distance at most r^2; a negative or NaN radius is false. */
const withinRadius: Kernel = (args, n) => {
  const [x, y, cx, cy, r] = args.map(asDoubles) as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const rr = r[i]!;
    const dx = x[i]! - cx[i]!,
      dy = y[i]! - cy[i]!;
    // As QuestDB: r^2 minus the squared distance not negative (NaN anywhere, or inf - inf, is false).
    out[i] = rr >= 0 && rr * rr - (dx * dx + dy * dy) >= 0 ? 1 : 0;
  }
  return boolVector(out);
};

/**
 * geo_distance_meters(lat1, lon1, lat2, lon2): with a constant first point (checked when bound)
 * the longitude scale is taken at lat1, otherwise at the two latitudes' midpoint, as QuestDB does
 * (so the result may differ slightly with the argument order). No wrap at the antimeridian.
 */
function distanceKernel(at: Positions, constFirst: boolean): Kernel {
  return (args, n) => {
    const [la1, lo1, la2, lo2] = args.map(asDoubles) as [Float64Array, Float64Array, Float64Array, Float64Array];
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const lat1 = la1[i]!,
        lon1 = lo1[i]!,
        lat2 = la2[i]!,
        lon2 = lo2[i]!;
      if (lat1 !== lat1 || lon1 !== lon1 || lat2 !== lat2 || lon2 !== lon2) {
        out[i] = NaN;
        continue;
      }
      if (!constFirst) {
        checkLat(lat1, at[0]);
        checkLon(lon1, at[1]);
      }
      checkLat(lat2, at[2]);
      checkLon(lon2, at[3]);
      const phi = constFirst ? lat1 : (lat1 + lat2) * 0.5;
      const perLonDegree = METERS_PER_DEGREE * Math.cos(phi * TO_RADIANS);
      const dx = (lon2 - lon1) * perLonDegree;
      const dy = (lat2 - lat1) * METERS_PER_DEGREE;
      out[i] = Math.sqrt(dx * dx + dy * dy);
    }
    return doubleVector(out);
  };
}

/**
 * geo_within_radius_latlon(lat, lon, clat, clon, radius_m): the projection scaled at the centre's
 * latitude, inclusive; a NaN or negative radius and NaN coordinates are false before any range check.
 */
function latLonRadiusKernel(at: Positions): Kernel {
  return (args, n) => {
    const [la, lo, cla, clo, r] = args.map(asDoubles) as [
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
      Float64Array,
    ];
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const rr = r[i]!;
      if (!(rr >= 0)) continue;
      const lat = la[i]!,
        lon = lo[i]!,
        clat = cla[i]!,
        clon = clo[i]!;
      if (lat !== lat || lon !== lon || clat !== clat || clon !== clon) continue;
      checkLat(clat, at[2]);
      checkLon(clon, at[3]);
      checkLat(lat, at[0]);
      checkLon(lon, at[1]);
      const perLonDegree = METERS_PER_DEGREE * Math.cos(clat * TO_RADIANS);
      const dx = (lon - clon) * perLonDegree;
      const dy = (lat - clat) * METERS_PER_DEGREE;
      out[i] = rr * rr - (dx * dx + dy * dy) >= 0 ? 1 : 0;
    }
    return boolVector(out);
  };
}

export function registerSpatial(registry: FunctionRegistry): void {
  const d = accept.double;
  defineScalar(registry, 'within_box', [
    { args: [d, d, d, d, d, d], build: () => ({ type: 'BOOLEAN', kernel: withinBox }) },
  ]);
  defineScalar(registry, 'within_radius', [
    { args: [d, d, d, d, d], build: () => ({ type: 'BOOLEAN', kernel: withinRadius }) },
  ]);
  defineScalar(registry, 'geo_distance_meters', [
    {
      args: [d, d, d, d],
      build: () => ({
        type: 'DOUBLE',
        kernel: distanceKernel([], false),
        bind: (args) => {
          const at = args.map((a) => a.pos);
          const [lat1, lon1, lat2, lon2] = args.map(constNumber);
          const constFirst = lat1 !== undefined && lon1 !== undefined;
          if (constFirst) {
            if (isNanConst(lat1) || isNanConst(lon1)) return { kernel: nullDoubleKernel };
            checkLat(lat1, at[0]);
            checkLon(lon1, at[1]);
            // All four constant: QuestDB folds the call when it is compiled, so the second point fails then too.
            if (lat2 !== undefined && lon2 !== undefined && !isNanConst(lat2) && !isNanConst(lon2)) {
              checkLat(lat2, at[2]);
              checkLon(lon2, at[3]);
            }
          }
          return { kernel: distanceKernel(at, constFirst) };
        },
      }),
    },
  ]);
  defineScalar(registry, 'geo_within_radius_latlon', [
    {
      args: [d, d, d, d, d],
      build: () => ({
        type: 'BOOLEAN',
        kernel: latLonRadiusKernel([]),
        bind: (args) => {
          const at = args.map((a) => a.pos);
          const [lat, lon, clat, clon, r] = args.map(constNumber);
          if (clat !== undefined && clon !== undefined && r !== undefined) {
            // A constant centre and radius: a NaN among them or a negative radius is FALSE whatever the rows.
            if (isNanConst(clat) || isNanConst(clon) || !(r >= 0)) return { kernel: falseKernel };
            checkLat(clat, at[2]);
            checkLon(clon, at[3]);
            if (lat !== undefined && lon !== undefined && !isNanConst(lat) && !isNanConst(lon)) {
              checkLat(lat, at[0]);
              checkLon(lon, at[1]);
            }
          }
          return { kernel: latLonRadiusKernel(at) };
        },
      }),
    },
  ]);
}
