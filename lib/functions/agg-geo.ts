// haversine_dist_deg(lat, lon, ts): the great-circle length in kilometres of the path through a
// group's points in row (scan) order, as QuestDB's aggregate; a row with a NULL latitude,
// longitude or timestamp is skipped (the path goes on from the last point it had); 0.0 without steps.
import type { ColumnVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { isNumeric } from '../core/sql-type.js';
import { asDoubles, fromDoubles, nullFlags } from '../core/vec.js';
import type { AggregateState, FunctionRegistry } from './registry.js';
import { growF64 } from './agg-util.js';
import { noMatch } from './signature.js';

/** QuestDB's Earth radius in kilometres (the IUGG mean radius). */
const EARTH_RADIUS_KM = 6371.088;

/** Degrees to radians the way QuestDB writes it (deg * PI / 180), for the same rounding. */
const rad = (deg: number): number => (deg * Math.PI) / 180;

/** One haversine step between two points in degrees, in kilometres. */
export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const p1 = rad(lat1),
    p2 = rad(lat2);
  const hLat = (p2 - p1) / 2,
    hLon = (rad(lon2) - rad(lon1)) / 2;
  const sLat = Math.sin(hLat),
    sLon = Math.sin(hLon);
  const a = sLat * sLat + Math.cos(p1) * Math.cos(p2) * sLon * sLon;
  return EARTH_RADIUS_KM * (2 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a)));
}

/** Per group: the last valid point (NaN before one) and the distance so far. */
class HaversineState implements AggregateState {
  private lat = new Float64Array(0);
  private lon = new Float64Array(0);
  private total = new Float64Array(0);

  private ensure(groups: number): void {
    this.lat = growF64(this.lat, groups, NaN);
    this.lon = growF64(this.lon, groups, NaN);
    this.total = growF64(this.total, groups);
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const la = asDoubles(args[0]!),
      lo = asDoubles(args[1]!);
    const tsNull = nullFlags(args[2]!);
    const { lat, lon, total } = this;
    for (let i = 0; i < n; i++) {
      const y = la[i]!,
        x = lo[i]!;
      if (y !== y || x !== x || tsNull[i] === 1) continue;
      const g = ids[i]!;
      const py = lat[g]!;
      if (py === py) total[g]! += haversineKm(py, lon[g]!, y, x);
      lat[g] = y;
      lon[g] = x;
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    return fromDoubles('DOUBLE', this.total.slice(0, groups));
  }

  bytes(): number {
    return this.lat.byteLength + this.lon.byteLength + this.total.byteLength;
  }
}

const coordinate = (t: SqlType): boolean => isNumeric(t) || t === 'NULL';
const TIMES: readonly SqlType[] = ['TIMESTAMP', 'TIMESTAMP_NS', 'DATE', 'NULL'];

export function registerGeoAggregates(registry: FunctionRegistry): void {
  registry.registerAggregate({
    name: 'haversine_dist_deg',
    resolve(argTypes, distinct) {
      if (
        distinct ||
        argTypes.length !== 3 ||
        !coordinate(argTypes[0]!) ||
        !coordinate(argTypes[1]!) ||
        !TIMES.includes(argTypes[2]!)
      )
        return noMatch('haversine_dist_deg', argTypes);
      return { type: 'DOUBLE', create: () => new HaversineState() };
    },
  });
}
