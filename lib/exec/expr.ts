// Bound expressions compiled once per query into closures that compute a whole
// batch: a column is returned as is, a constant is a cached repeated vector, a
// call runs its kernel on the arguments' vectors (an error a kernel raises
// without a position gets the call's). Subqueries must have been run first
// (prepareSubqueries in subqueries.ts; their values come from the execution's
// context). An Evaluator gives one operator's
// expressions their kernel context and runs them over a batch, in row chunks
// when the text they build would pass the chunk size.
import type { ColumnVector } from '../core/column-vector.js';
import type { BoundExpr } from '../sql/bound.js';
import type { KernelContext } from '../functions/registry.js';
import { RowChunkOverflow } from '../functions/text-out.js';
import { constantVector } from '../core/vec.js';
import { MemoryBudget } from '../limits/memory-budget.js';
import type { Batch } from '../core/batch.js';
import { isSvcError, SvcError } from '../errors/svc-error.js';
import { MEMORY_LIMIT_KEY, pace, type ExecContext } from './context.js';
import { sliceBatch, sliceVector } from '../core/vector-ops.js';
import { repeatRow, rowBytes } from './vectors.js';
import { isConstant } from '../sql/const-value.js';
import { inSubquery, scalarSubquery, type SubqueryValues } from './subqueries.js';

export type CompiledExpr = (batch: Batch) => ColumnVector;

/** Text one kernel call may build over a batch before it is redone in row chunks: 1/16 of the statement's limit, 256 KiB to 16 MiB. */
function chunkBytes(cx: ExecContext): number {
  return Math.min(16 * 1024 * 1024, Math.max(256 * 1024, Math.floor(cx.budget.limit / 16)));
}

/** `subqueries`: the values of the subqueries the execution has run (null outside one: there can be none there). */
export function compileExpr(e: BoundExpr, kx: KernelContext, subqueries: SubqueryValues = null): CompiledExpr {
  switch (e.kind) {
    case 'col': {
      const i = e.index;
      return (b) => b.columns[i]!;
    }
    case 'const':
      return constant(() => constantVector(e.type, e.value, 1), kx);
    case 'call': {
      const args = (e.runArgs ? e.runArgs.map((i) => e.args[i]!) : e.args).map((a) => compileExpr(a, kx, subqueries));
      if (isConstant(e)) {
        // Deterministic and of constants only: computed once (one row), then repeated.
        const kernel = e.fn.kernel;
        const one: Batch = { rowCount: 1, columns: [] };
        return constant(() => {
          try {
            return kernel(
              args.map((a) => a(one)),
              1,
              kx,
            );
          } catch (err) {
            throw atCall(err, e.pos);
          }
        }, kx);
      }
      const kernel = e.fn.kernel;
      const pos = e.pos;
      return (b) => {
        try {
          return kernel(
            args.map((a) => a(b)),
            b.rowCount,
            kx,
          );
        } catch (err) {
          throw atCall(err, pos);
        }
      };
    }
    case 'subquery': {
      const value = scalarSubquery(e, subqueries);
      return (b) => value(b.rowCount);
    }
    case 'inSubquery': {
      const x = compileExpr(e.expr, kx, subqueries);
      const test = inSubquery(e, subqueries);
      return (b) => test(x(b));
    }
  }
}

/**
 * A constant's vector for a batch: its one row (`first`, computed on first
 * use) repeated, cached across batches. A text constant over many rows can be
 * large: past the chunk size the batch goes again in row chunks, and the
 * repeated vector must fit the budget.
 */
function constant(first: () => ColumnVector, kx: KernelContext): CompiledExpr {
  let one: ColumnVector | null = null;
  let cached: ColumnVector | null = null;
  let size = 0;
  return (b) => {
    const n = b.rowCount;
    if (!cached || size < n) {
      one ??= first();
      const bytes = rowBytes(one);
      if (n > 1 && bytes * n > kx.chunkBytes) throw new RowChunkOverflow(n, bytes * n);
      kx.budget.check(bytes * n, 'a constant repeated over a batch');
      // Small values are cached for a few more rows than asked, so that shorter batches slice it.
      size = bytes * 1024 <= 1024 * 1024 ? Math.max(n, 1024) : n;
      cached = repeatRow(one, size);
    }
    return size === n ? cached : sliceVector(cached, 0, n);
  };
}

/** A kernel's SQL error without a position, placed at the call that raised it (other errors pass through). */
function atCall(err: unknown, pos: number): unknown {
  if (isSvcError(err) && err.position === undefined)
    return new SvcError(err.code, err.message, { position: pos, cause: err });
  return err;
}

/**
 * The expressions of one operator. Their kernels charge what they build to a
 * scratch budget under the statement's (so no batch outgrows the limit), given
 * back after each step: a step's results then belong to whoever keeps them
 * (a collecting operator charges them again). chunks() redoes a step over
 * smaller row ranges when a kernel's text passes the chunk size, and yields to
 * the event loop between ranges.
 */
export class Evaluator {
  readonly kx: KernelContext;
  readonly #cx: ExecContext;
  /** Rows per step: the whole batch until a step overflows, then what fits, doubled after every 8 steps that fit. */
  #rows = Infinity;
  #fits = 0;

  /** `chunked`: whether the caller goes through chunks() (else an overflow is only the budget's 400). */
  constructor(cx: ExecContext, chunked = true) {
    this.#cx = cx;
    this.kx = {
      budget: new MemoryBudget(Infinity, MEMORY_LIMIT_KEY, cx.budget),
      deadline: cx.deadline,
      maxTextBytes: cx.maxTextBytes,
      chunkBytes: chunked ? chunkBytes(cx) : Infinity,
      statementMicros: cx.statementMicros,
      activity: cx.activity,
      config: cx.config,
    };
  }

  compile(e: BoundExpr): CompiledExpr {
    return compileExpr(e, this.kx, this.#cx.subqueryValues);
  }

  /** `step` over `b`, what its kernels charged given back after. */
  once<T>(b: Batch, step: (b: Batch) => T): T {
    try {
      return step(b);
    } finally {
      this.kx.budget.releaseAll();
    }
  }

  /**
   * `step` over `b` or, when a kernel's text passes the chunk size, over
   * consecutive row ranges of it (results in row order). A step must not change
   * state before its expressions are evaluated: an overflowing one runs again.
   */
  async *chunks<T>(b: Batch, step: (part: Batch) => T): AsyncGenerator<T> {
    const n = b.rowCount;
    if (n === 0) {
      yield this.once(b, step);
      return;
    }
    for (let lo = 0; lo < n;) {
      const hi = Math.min(n, lo + this.#rows);
      let out: T;
      try {
        out = this.once(lo === 0 && hi === n ? b : sliceBatch(b, lo, hi), step);
      } catch (e) {
        if (!(e instanceof RowChunkOverflow)) throw e;
        this.#shrink(e);
        continue;
      }
      yield out;
      // Growing back slowly: each step too large is work done twice.
      if (hi < n && ++this.#fits % 8 === 0) this.#rows = Math.min(this.#rows * 2, n);
      lo = hi;
      if (lo < n) await pace(this.#cx);
    }
  }

  /** Rows that build about half the chunk size, judging by the overflowing step. */
  #shrink(e: RowChunkOverflow): void {
    const fit = Math.floor((e.rows * this.kx.chunkBytes) / (2 * e.bytes));
    this.#rows = Math.max(1, Math.min(fit, e.rows - 1));
    this.#fits = 0;
  }
}
