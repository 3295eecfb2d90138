// Bound expressions compiled once per query into closures that compute a whole
// batch: a column is returned as is, a constant is a cached repeated vector, a
// call runs its kernel on the arguments' vectors (an error a kernel raises
// without a position gets the call's). Subqueries must have been run first
// (prepareSubqueries in subqueries.ts).
import type { ColumnVector } from '../storage/column-vector.js';
import type { BoundExpr } from '../sql/bound.js';
import { constantVector } from '../sql/functions/vec.js';
import type { Batch } from '../storage/table-reader.js';
import { isSvcError, SvcError } from '../errors/svc-error.js';
import { prefix } from './vectors.js';
import { inSubquery, scalarSubquery } from './subqueries.js';

export type CompiledExpr = (batch: Batch) => ColumnVector;

export function compileExpr(e: BoundExpr): CompiledExpr {
  switch (e.kind) {
    case 'col': {
      const i = e.index;
      return (b) => b.columns[i]!;
    }
    case 'const': {
      let cached: ColumnVector | null = null;
      let size = 0;
      return (b) => {
        const n = b.rowCount;
        if (!cached || size < n) { size = Math.max(n, 1024); cached = constantVector(e.type, e.value, size); }
        return size === n ? cached : prefix(cached, n);
      };
    }
    case 'call': {
      const args = e.args.map(compileExpr);
      const kernel = e.fn.kernel;
      const pos = e.pos;
      return (b) => {
        try {
          return kernel(args.map((a) => a(b)), b.rowCount);
        } catch (err) {
          throw atCall(err, pos);
        }
      };
    }
    case 'subquery': {
      const value = scalarSubquery(e);
      return (b) => value(b.rowCount);
    }
    case 'inSubquery': {
      const x = compileExpr(e.expr);
      const test = inSubquery(e);
      return (b) => test(x(b));
    }
  }
}

/** A kernel's SQL error without a position, placed at the call that raised it (other errors pass through). */
function atCall(err: unknown, pos: number): unknown {
  if (isSvcError(err) && err.position === undefined) return new SvcError(err.code, err.message, { position: pos, cause: err });
  return err;
}
