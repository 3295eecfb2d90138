// createFunctionRegistry(): a new registry with every scalar function,
// operator, cast, generator and aggregate. Modules export their register
// functions; this file is the one place that calls them (no import-time side effects).
import { FunctionRegistry } from './registry.js';
import { registerNumericAggregates } from './agg-numeric.js';
import { registerPickAggregates } from './agg-pick.js';
import { registerModeAggregates } from './agg-mode.js';
import { registerFinanceAggregates } from './agg-finance.js';
import { registerOrderAggregates } from './agg-order.js';
import { registerFinance } from './finance.js';
import { registerMeta } from './meta.js';
import { registerGeo } from './geo.js';
import { registerSpatial } from './spatial.js';
import { registerGeoAggregates } from './agg-geo.js';
import { registerTextAggregates } from './agg-text.js';
import { registerTimeZone } from './time-zone.js';
import { registerArithmetic } from './arithmetic.js';
import { registerBitwise } from './bitwise.js';
import { registerArrays } from './arrays.js';
import { registerArrayFunctions } from './array-functions.js';

import { registerCasts } from './cast.js';
import { registerCompare } from './compare.js';
import { registerLogic } from './logic.js';
import { registerMath } from './math.js';
import { registerPattern } from './pattern.js';
import { RandomSeeds, registerRandom } from './random.js';
import { registerRandomText } from './random-text.js';
import { registerRandomData } from './random-data.js';
import { registerRandomValues } from './random-values.js';
import { registerMakeValues } from './make-values.js';
import { registerBinary } from './binary.js';
import { registerText } from './text.js';
import { registerTime } from './time.js';
import { registerTimeParts } from './time-parts.js';
import { registerTimeNs } from './time-ns.js';
import { registerJson } from './json.js';
import { registerInterval } from './interval.js';

export interface FunctionRegistryOptions {
  /** Seeds the rnd_* generators: call sites bound in the same order draw the same values (default: from the clock). */
  readonly randomSeed?: number;
}

/** A sealed registry of every function: one per database, shared by its statements. */
export function createFunctionRegistry(options: FunctionRegistryOptions = {}): FunctionRegistry {
  const registry = new FunctionRegistry();
  const seeds = new RandomSeeds(options.randomSeed);
  registerArithmetic(registry);
  registerBitwise(registry);
  registerCompare(registry);
  registerLogic(registry);
  registerPattern(registry);
  registerCasts(registry);
  registerMath(registry);
  registerFinance(registry);
  registerArrayFunctions(registry);
  registerMeta(registry);
  registerGeo(registry);
  registerSpatial(registry);
  registerText(registry);
  registerTime(registry);
  registerTimeParts(registry);
  registerTimeNs(registry);
  registerJson(registry);
  registerRandom(registry, seeds);
  registerRandomText(registry, seeds);
  registerRandomData(registry, seeds);
  registerRandomValues(registry, seeds);
  registerInterval(registry, seeds);
  registerMakeValues(registry);
  registerBinary(registry);
  registerNumericAggregates(registry);
  registerPickAggregates(registry);
  registerModeAggregates(registry);
  registerFinanceAggregates(registry);
  registerOrderAggregates(registry);
  registerTextAggregates(registry);
  registerGeoAggregates(registry);
  registerTimeZone(registry);
  registerArrays(registry);
  return registry.seal();
}
