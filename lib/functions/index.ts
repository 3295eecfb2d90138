// Registers every scalar function, operator, cast, generator and aggregate:
// `import './functions/index.js'` once before binding. Modules export their
// register functions; this file is the one place that calls them.
import { registerNumericAggregates } from './agg-numeric.js';
import { registerPickAggregates } from './agg-pick.js';
import { registerFinanceAggregates } from './agg-finance.js';
import { registerTextAggregates } from './agg-text.js';
import { registerTimeZone } from './time-zone.js';
import { registerArithmetic } from './arithmetic.js';
import { registerArrays } from './arrays.js';
import { registerCasts } from './cast.js';
import { registerCompare } from './compare.js';
import { registerLogic } from './logic.js';
import { registerMath } from './math.js';
import { registerPattern } from './pattern.js';
import { registerRandom } from './random.js';
import { registerRandomText } from './random-text.js';
import { registerText } from './text.js';
import { registerTime } from './time.js';
import { registerTimeParts } from './time-parts.js';

registerArithmetic();
registerCompare();
registerLogic();
registerPattern();
registerCasts();
registerMath();
registerText();
registerTime();
registerTimeParts();
registerRandom();
registerRandomText();
registerNumericAggregates();
registerPickAggregates();
registerFinanceAggregates();
registerTextAggregates();
registerTimeZone();
registerArrays();
