// UPDATE t SET a = expr, ... [FROM src] [WHERE cond]: each partition's rows
// are read, `a` becomes case(matched, expr, a), and partitions with matching
// rows are rewritten as new versions in one commit. With FROM, a target row
// takes its values from the first source row that satisfies WHERE (equalities
// between a target and a source column are hash-join keys; NULL keys never
// match); rows with no such source row keep theirs. Returns the rows updated.
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import type { ColumnType } from '../core/column-type.js';
import type * as A from '../sql/ast.js';
import { bindExpr, call, castTo, resolveColumn, type Scope, type ScopeField } from '../sql/bind-expr.js';
import type { BoundExpr, Plan } from '../sql/bound.js';
import { bindFromItem, conjuncts, subqueryBinder } from '../sql/binder.js';
import { balancedAnd } from '../sql/parse-expr.js';
import type { StatementEnv } from '../sql/statement-env.js';
import { DEFAULT_BATCH_ROWS, type Batch } from '../core/batch.js';
import { collect } from './batches.js';
import { Held, keyEntryBytes, pace, type ExecContext } from './context.js';
import { Evaluator, type CompiledExpr } from './expr.js';
import { joinPairs } from './hash-join.js';
import { writableTable } from './insert.js';
import { run } from './operators.js';
import { prepareSubqueries } from './subqueries.js';
import { rowKey, valueAt } from './vectors.js';

type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

interface FromSource {
  readonly plan: Plan;
  readonly types: ColumnType[];
  /** Join keys: target column indexes and source column indexes (into the source's own fields). */
  readonly targetKeys: number[];
  readonly sourceKeys: number[];
}

export function runUpdate(stmt: A.Update, catalog: Catalog, env: StatementEnv): Prepared {
  const table = writableTable(catalog, stmt.table, stmt.tablePos);
  const meta = table.meta;
  const target: ScopeField[] = meta.columns.map((c) => ({
    table: stmt.alias ?? meta.name,
    name: c.name,
    type: c.type,
  }));
  const nt = target.length;
  const bound = stmt.from ? bindFromItem(stmt.from, { catalog, ...env }, stmt.with ?? []) : null;
  const scope: Scope = {
    fields: [...target, ...(bound?.scope.fields ?? [])],
    subquery: subqueryBinder({ catalog, ...env }),
  };

  let whereAst = stmt.where;
  let from: FromSource | null = null;
  if (bound) {
    const targetKeys: number[] = [],
      sourceKeys: number[] = [];
    const rest: A.Expr[] = [];
    for (const c of stmt.where ? conjuncts(stmt.where) : []) {
      if (c.kind === 'binary' && c.op === '=' && c.left.kind === 'column' && c.right.kind === 'column') {
        const a = resolveColumn(scope, c.left).index,
          b = resolveColumn(scope, c.right).index;
        if (a < nt && b >= nt) {
          targetKeys.push(a);
          sourceKeys.push(b - nt);
          continue;
        }
        if (b < nt && a >= nt) {
          targetKeys.push(b);
          sourceKeys.push(a - nt);
          continue;
        }
      }
      rest.push(c);
    }
    whereAst = rest.length === 0 ? null : balancedAnd(rest);
    const types = bound.plan.fields.map((f) => (f.type === 'NULL' ? 'DOUBLE' : f.type));
    from = { plan: bound.plan, types, targetKeys, sourceKeys };
  }
  const where: BoundExpr | null = whereAst ? bindExpr(whereAst, { env, scope, onAggregate: null }) : null;
  if (where && where.type !== 'BOOLEAN')
    throw new SvcError('SQL', 'boolean expression expected', { position: whereAst!.pos });

  // One expression per table column over [target columns, source columns, matched]: unchanged columns pass through.
  const matchedIndex = scope.fields.length;
  const matched: BoundExpr = from
    ? { kind: 'col', index: matchedIndex, type: 'BOOLEAN' }
    : (where ?? { kind: 'const', type: 'BOOLEAN', value: true });
  const exprs: BoundExpr[] = meta.columns.map((c, i) => ({ kind: 'col', index: i, type: c.type }));
  for (const s of stmt.set) {
    const i = meta.columns.findIndex((c) => c.name.toLowerCase() === s.column.toLowerCase());
    if (i < 0) throw new SvcError('SQL', `Invalid column: ${s.column}`, { position: s.pos });
    const c = meta.columns[i]!;
    if (c.id === meta.timestampId)
      throw new SvcError('SQL', 'Designated timestamp column cannot be updated', { position: s.pos });
    const value = castTo(env, bindExpr(s.value, { env, scope, onAggregate: null }), c.type, s.value.pos);
    exprs[i] = from || where ? call(env, 'case', [matched, value, exprs[i]!], s.pos) : value;
  }

  return async (cx) => {
    const held = new Held(cx.budget, 'UPDATE');
    try {
      // Subqueries and the FROM source run before the writer is taken (they may read this very table).
      await prepareSubqueries([...exprs, where], cx);
      // A partition at a time (no row chunks: the writer's callback is synchronous); what kernels build is charged meanwhile.
      const ev = new Evaluator(cx, false);
      const fns = exprs.map((e) => ev.compile(e));
      const cond = where ? ev.compile(where) : null;
      const source = from ? await collect(run(from.plan, cx), from.types.length, cx, held) : null;
      const pick = from && source ? matcher(from, source, cond, ev, cx, held) : null;
      const w = await catalog.writer(stmt.table);
      let updated = 0;
      try {
        await w.rewritePartitionsAsync(
          (rows) => {
            let input: Batch = rows;
            let n: number;
            if (pick) {
              const chosen = pick(rows);
              n = 0;
              for (let i = 0; i < chosen.length; i++) if (chosen[i]! >= 0) n++;
              if (n === 0) return null;
              const all = new Int32Array(rows.rowCount);
              for (let i = 0; i < all.length; i++) all[i] = i;
              const joined = joinPairs(rows, source!, all, chosen, from!.types);
              const flags = new Uint8Array(rows.rowCount);
              for (let i = 0; i < flags.length; i++) flags[i] = chosen[i]! >= 0 ? 1 : 0;
              input = {
                rowCount: rows.rowCount,
                columns: [...joined.columns, { kind: 'fixed', type: 'BOOLEAN', data: flags }],
              };
            } else if (cond) {
              const m = ev.once(rows, (b) => (cond(b) as { data: Uint8Array }).data);
              n = 0;
              for (let i = 0; i < rows.rowCount; i++) n += m[i]!;
              if (n === 0) return null;
            } else {
              n = rows.rowCount;
            }
            updated += n;
            cx.deadline.check();
            return ev.once(input, (b) => fns.map((f) => f(b)));
          },
          () => pace(cx),
        ); // the statement's pace between partitions: its deadline, a turn for other requests
      } finally {
        w.close();
      }
      if (updated > 0) catalog.invalidateMatViews(meta.name, 'update operation');
      return { rows: updated };
    } finally {
      held.release();
    }
  };
}

/**
 * For each row of a target batch, the first source row matching it (keys
 * equal, then the remaining WHERE over the pair), or -1. Candidate pairs are
 * made and tested a batch at a time.
 */
function matcher(
  from: FromSource,
  source: Batch,
  cond: CompiledExpr | null,
  ev: Evaluator,
  cx: ExecContext,
  held: Held,
): (rows: Batch) => Int32Array {
  const byKey = new Map<string, number[]>();
  const every = Int32Array.from({ length: source.rowCount }, (_, j) => j);
  held.add(every.byteLength);
  if (from.sourceKeys.length > 0) {
    const cols = from.sourceKeys.map((k) => source.columns[k]!);
    let bytes = 0;
    for (let j = 0; j < source.rowCount; j++) {
      if (cols.some((c) => valueAt(c, j) === null)) continue;
      const k = rowKey(cols, j);
      const list = byKey.get(k);
      if (list) list.push(j);
      else {
        byKey.set(k, [j]);
        bytes += keyEntryBytes(k.length);
      }
      bytes += 8;
    }
    held.add(bytes);
  }
  const li = new Int32Array(DEFAULT_BATCH_ROWS),
    ri = new Int32Array(DEFAULT_BATCH_ROWS);
  held.add(li.byteLength + ri.byteLength);
  return (rows) => {
    const chosen = new Int32Array(rows.rowCount).fill(-1);
    if (source.rowCount === 0) return chosen;
    const keys = from.targetKeys.map((k) => rows.columns[k]!);
    let count = 0;
    const test = (): void => {
      const pairs = joinPairs(rows, source, li.subarray(0, count), ri.subarray(0, count), from.types);
      const m = ev.once(pairs, (b) => (cond!(b) as { data: Uint8Array }).data);
      for (let p = 0; p < count; p++) if (m[p] && chosen[li[p]!]! < 0) chosen[li[p]!] = ri[p]!;
      count = 0;
      cx.deadline.check();
    };
    for (let i = 0; i < rows.rowCount; i++) {
      const candidates =
        keys.length === 0 ? every : keys.some((c) => valueAt(c, i) === null) ? undefined : byKey.get(rowKey(keys, i));
      if (!candidates) continue;
      if (!cond) {
        chosen[i] = candidates[0]!;
        continue;
      }
      for (const j of candidates) {
        li[count] = i;
        ri[count] = j;
        count++;
        if (count === li.length) test();
      }
    }
    if (cond && count > 0) test();
    return chosen;
  };
}
