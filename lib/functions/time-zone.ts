// to_timezone(ts, zone) and to_utc(ts, zone) as QuestDB has them: a UTC
// timestamp shown as the zone's wall-clock time, and a wall-clock time of the
// zone back to UTC. Zones are what core/time-zones.ts resolveZone takes: IANA
// names (DST-correct), fixed offsets ('+02:00', 'UTC') and QuestDB's abbreviations.
import { LONG_NULL } from '../core/column-type.js';
import { zoneOffsetAt } from '../core/time-zones.js';
import { argError, type BindHook, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar } from './signature.js';
import { uniformText } from '../core/utf8.js';

/** The zone's offset from UTC (micros) as a function of the UTC instant; throws for an unknown zone. */
export function offsetAt(zone: string): (utc: number) => number {
  return zoneOffsetAt(zone);
}

const checkZone: BindHook = (args) => {
  const z = args[1]!;
  if (z.value === undefined || z.value === null) return;
  try {
    offsetAt(String(z.value));
  } catch {
    throw argError(`invalid timezone [${String(z.value)}]`, z.pos);
  }
};

function kernel(toUtc: boolean): Kernel {
  return (args, n) => {
    const d = (args[0] as { data: Float64Array }).data;
    const zone = uniformText(args[1]!, n);
    const out = new Float64Array(n).fill(LONG_NULL);
    if (zone === null || zone === undefined) return { kind: 'fixed', type: 'TIMESTAMP', data: out };
    let off: (utc: number) => number;
    try {
      off = offsetAt(zone);
    } catch {
      throw argError(`invalid timezone [${zone}]`, 0);
    }
    for (let i = 0; i < n; i++) {
      const t = d[i]!;
      if (t === LONG_NULL) continue;
      // Wall clock -> UTC: the offset at the UTC instant near that wall time, corrected once.
      out[i] = toUtc ? t - off(t - off(t)) : t + off(t);
    }
    return { kind: 'fixed', type: 'TIMESTAMP', data: out };
  };
}

export function registerTimeZone(registry: FunctionRegistry): void {
  defineScalar(registry, 'to_timezone', [
    {
      args: [accept.timestamp, accept.text],
      build: () => ({ type: 'TIMESTAMP', kernel: kernel(false), bind: checkZone }),
    },
  ]);
  defineScalar(registry, 'to_utc', [
    {
      args: [accept.timestamp, accept.text],
      build: () => ({ type: 'TIMESTAMP', kernel: kernel(true), bind: checkZone }),
    },
  ]);
}
