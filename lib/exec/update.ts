// UPDATE t SET a = expr, ... [WHERE cond]: each partition's rows are read,
// `a` becomes case(cond, expr, a), and partitions with matching rows are
// rewritten as new versions in one commit. Returns the number of rows updated.
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import type * as A from '../sql/ast.js';
import { bindExpr, call, castTo, type Scope } from '../sql/bind-expr.js';
import type { BoundExpr } from '../sql/bound.js';
import type { ExecContext } from './context.js';
import { compileExpr } from './expr.js';
import { prepareSubqueries } from './subqueries.js';
import { subqueryBinder } from '../sql/binder.js';

type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

export function runUpdate(stmt: A.Update, catalog: Catalog): Prepared {
  if (!catalog.exists(stmt.table)) throw new SvcError('SQL', `table does not exist [table=${stmt.table}]`, { position: stmt.tablePos });
  if (stmt.from) throw new SvcError('SQL', 'UPDATE ... FROM is not supported yet', { position: stmt.from.pos });
  const meta = catalog.get(stmt.table).meta;
  const scope: Scope = { fields: meta.columns.map((c) => ({ table: stmt.alias ?? meta.name, name: c.name, type: c.type })), subquery: subqueryBinder({ catalog }) };
  const where: BoundExpr | null = stmt.where ? bindExpr(stmt.where, { scope, onAggregate: null }) : null;
  if (where && where.type !== 'BOOLEAN') throw new SvcError('SQL', 'boolean expression expected', { position: stmt.where!.pos });
  // One expression per table column: unchanged columns pass through.
  const exprs: BoundExpr[] = meta.columns.map((c, i) => ({ kind: 'col', index: i, type: c.type }));
  for (const s of stmt.set) {
    const i = meta.columns.findIndex((c) => c.name.toLowerCase() === s.column.toLowerCase());
    if (i < 0) throw new SvcError('SQL', `Invalid column: ${s.column}`, { position: s.pos });
    const c = meta.columns[i]!;
    if (c.id === meta.timestampId) throw new SvcError('SQL', 'Designated timestamp column cannot be updated', { position: s.pos });
    const value = castTo(bindExpr(s.value, { scope, onAggregate: null }), c.type, s.value.pos);
    exprs[i] = where ? call('case', [where, value, exprs[i]!], s.pos) : value;
  }
  return async (cx) => {
    // Subqueries run before the writer is taken (they may read this very table).
    await prepareSubqueries([...exprs, where], cx);
    const fns = exprs.map(compileExpr);
    const mask = where ? compileExpr(where) : null;
    const w = await catalog.writer(stmt.table);
    let updated = 0;
    try {
      w.rewritePartitions((rows) => {
        let n = rows.rowCount;
        if (mask) {
          const m = (mask(rows) as { data: Uint8Array }).data;
          n = 0;
          for (let i = 0; i < rows.rowCount; i++) n += m[i]!;
        }
        if (n === 0) return null;
        updated += n;
        return fns.map((f) => f(rows));
      });
    } finally {
      w.close();
    }
    return { rows: updated };
  };
}
