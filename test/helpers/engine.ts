// What tests that call compile() directly give it besides a catalog: the
// function registry and the yield clock a database would own, one each for
// the test file (spread into EngineOptions: `{ ...ENGINE, catalog }`).
import type { EngineOptions } from '../../lib/exec/engine.js';
import { Pacer } from '../../lib/exec/pacer.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';

export const ENGINE: Pick<EngineOptions, 'registry' | 'pacer'> = {
  registry: createFunctionRegistry(),
  pacer: new Pacer(),
};
