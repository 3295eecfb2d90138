// INSERT INTO ... VALUES / SELECT: values are cast to the columns' types, the
// rows appended through the table's writer and committed at the end (all or
// nothing).
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import type { Table } from '../storage/table.js';
import type { ColumnVector } from '../core/column-vector.js';
import { OutOfOrderError, type TableWriter } from '../storage/table-writer.js';
import { concatVectors } from '../core/vector-ops.js';
import type * as A from '../sql/ast.js';
import { bindExpr, castTo, inconvertibleValue } from '../sql/bind-expr.js';
import type { BoundExpr, Plan } from '../sql/bound.js';
import { bindQuery } from '../sql/binder.js';
import type { StatementEnv } from '../sql/statement-env.js';
import { isNumeric, isTemporal, isText, type SqlType } from '../core/sql-type.js';
import { typeName } from '../core/column-type.js';
import type { KernelContext } from '../functions/registry.js';
import type { Batch } from '../core/batch.js';
import { pace, type ExecContext } from './context.js';
import { compileExpr, Evaluator } from './expr.js';
import { run } from './operators.js';
import { valueAt } from './vectors.js';
import { nullFlags } from '../core/vec.js';

type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

/** `env`: the statement's functions and time; `kx`: the context VALUES are computed in (once, at compile time). */
export function runInsert(stmt: A.Insert, catalog: Catalog, env: StatementEnv, kx: KernelContext): Prepared {
  const table = writableTable(catalog, stmt.table, stmt.tablePos);
  const meta = table.meta;
  const targets = stmt.columns
    ? stmt.columns.map((c) => {
        const d = meta.columns.find((x) => x.name.toLowerCase() === c.name.toLowerCase());
        if (!d) throw new SvcError('SQL', `Invalid column: ${c.name}`, { position: c.pos });
        return d;
      })
    : meta.columns;
  const ts = meta.columns.find((c) => c.id === meta.timestampId);
  if (ts && !targets.includes(ts))
    throw new SvcError('SQL', `designated timestamp column must be set [column=${ts.name}]`, {
      position: stmt.tablePos,
    });
  const names = targets.map((c) => c.name);

  if (stmt.query) {
    // `WITH c AS (...) INSERT INTO t SELECT ... FROM c`: the statement's CTEs are the query's too.
    const query = stmt.with?.length ? { ...stmt.query, with: [...stmt.with, ...stmt.query.with] } : stmt.query;
    const plan = bindQuery(query, { catalog, ...env });
    if (plan.fields.length !== targets.length) {
      throw new SvcError(
        'SQL',
        `select clause must provide ${targets.length} columns, it provides ${plan.fields.length}`,
        { position: stmt.query.pos },
      );
    }
    const pos = stmt.query.pos;
    return async (cx) => ({ rows: await appendQuery(catalog, stmt.table, names, plan, cx, pos) });
  }
  const rows = (stmt.values ?? []).map((row, r) => {
    if (row.length !== targets.length) {
      // QuestDB points at the row's closing parenthesis.
      throw new SvcError(
        'SQL',
        `row value count does not match column count [expected=${targets.length}, actual=${row.length}, tuple=${r + 1}]`,
        { position: stmt.valuesEnds?.[r] ?? row[0]?.pos ?? stmt.pos },
      );
    }
    return row.map((e, i) => {
      const target = targets[i]!;
      const bound = bindExpr(e, { env, scope: { fields: [] }, onAggregate: null });
      // A BOOLEAN column takes only BOOLEAN values, and a BOOLEAN goes into no number column (QuestDB's assignability).
      if (
        (target.type === 'BOOLEAN') !== (bound.type === 'BOOLEAN') &&
        (isNumeric(bound.type) || isTemporal(bound.type) || isNumeric(target.type) || isTemporal(target.type))
      ) {
        const shown = e.kind === 'literal' ? e.text : 'value';
        throw new SvcError(
          'SQL',
          `inconvertible types: ${typeName(bound.type)} -> ${typeName(target.type)} [from=${shown}, to=${target.name}]`,
          { position: e.pos },
        );
      }
      const one = { rowCount: 1, columns: [] };
      const value = (): string => String(valueAt(compileExpr(bound, kx)(one), 0));
      let cast: BoundExpr;
      try {
        cast = castTo(env, bound, target.type, e.pos);
      } catch (err) {
        // Text that is no timestamp fails the parse at bind time: QuestDB's implicit-cast error.
        if (err instanceof SvcError && bound.kind === 'const' && isText(bound.type) && isTemporal(target.type))
          throw inconvertibleValue(value(), bound.type, target.type);
        throw err;
      }
      const fn = compileExpr(cast, kx);
      // A value that is not NULL must not become NULL on the way in (QuestDB: inconvertible value).
      if (nullFlags(compileExpr(bound, kx)(one))[0] === 0 && nullFlags(fn(one))[0] === 1)
        throw inconvertibleValue(value(), bound.type, target.type);
      return fn;
    });
  });
  return async () => {
    const one = { rowCount: 1, columns: [] };
    const columns: Record<string, ColumnVector> = {};
    targets.forEach((t, i) => {
      columns[t.name] = concatVectors(rows.map((r) => r[i]!(one)));
    });
    const w = await catalog.writer(stmt.table);
    try {
      w.append({ rowCount: rows.length, columns });
      w.commit();
    } catch (e) {
      // A row older than a non-partitioned table's newest: at that row's timestamp value.
      const tsAt = ts ? targets.indexOf(ts) : -1;
      if (e instanceof OutOfOrderError && tsAt >= 0)
        throw new SvcError('SQL', e.message, { position: stmt.values![e.row]![tsAt]!.pos });
      throw e;
    } finally {
      w.close();
    }
    return { rows: rows.length };
  };
}

/**
 * Runs `plan` and appends its rows to `table`'s columns `names` (cast to their
 * types); one commit at the end. A value the cast turns into NULL fails the
 * statement (at `pos`, the query) and nothing is written.
 */
export async function appendQuery(
  catalog: Catalog,
  table: string,
  names: readonly string[],
  plan: Plan,
  cx: ExecContext,
  pos: number,
): Promise<number> {
  const w = await catalog.writer(table);
  try {
    return await appendRows(w, names, plan, cx, pos);
  } finally {
    w.close(); // rolls back anything not committed
  }
}

/** appendQuery into a writer the caller holds (and closes), e.g. a staged table's (CREATE TABLE AS SELECT). */
export async function appendRows(
  w: TableWriter,
  names: readonly string[],
  plan: Plan,
  cx: ExecContext,
  pos: number,
  /** The rows of each batch of `plan` to write (a live view's refresh keeps its new rows), or all of them. */
  keep?: (b: Batch) => Batch,
): Promise<number> {
  const meta = w.meta;
  const types: SqlType[] = names.map((n) => meta.columns.find((c) => c.name.toLowerCase() === n.toLowerCase())!.type);
  const casts: BoundExpr[] = plan.fields.map((f, i) =>
    castTo(cx, { kind: 'col', index: i, type: f.type }, types[i]!, pos),
  );
  const ev = new Evaluator(cx);
  const fns = casts.map((e) => ev.compile(e));
  let rows = 0;
  const convert = (b: Batch): Batch => {
    const columns = names.map((_n, i) => {
      const out = fns[i]!(b);
      if (casts[i]!.kind !== 'col') checkConverted(b.columns[i]!, out, plan.fields[i]!.type, types[i]!, rows, pos);
      return out;
    });
    return { rowCount: b.rowCount, columns };
  };
  for await (const whole of run(plan, cx)) {
    const batch = keep !== undefined ? keep(whole) : whole;
    if (batch.rowCount === 0) continue;
    for await (const b of ev.chunks(batch, convert)) {
      const columns: Record<string, ColumnVector> = {};
      names.forEach((n, i) => {
        columns[n] = b.columns[i]!;
      });
      // A few dozen partitions at a time, the statement's pace (deadline, a turn for other requests) between.
      await w.appendAsync({ rowCount: b.rowCount, columns }, () => pace(cx));
      rows += b.rowCount;
      await pace(cx);
    }
    await pace(cx);
  }
  await w.commitAsync(() => pace(cx));
  return rows;
}

/** Fails when a cast turned a value that was not NULL into NULL (QuestDB: inconvertible value). */
function checkConverted(
  input: ColumnVector,
  output: ColumnVector,
  from: SqlType,
  to: SqlType,
  before: number,
  pos: number,
): void {
  if (from === 'NULL') return;
  const was = nullFlags(input);
  const now = nullFlags(output);
  for (let i = 0; i < now.length; i++) {
    if (now[i] && !was[i]) {
      throw new SvcError(
        'SQL',
        `inconvertible value: ${String(valueAt(input, i))} [${from} -> ${to}, row=${before + i + 1}]`,
        { position: pos },
      );
    }
  }
}

/**
 * The table an INSERT or UPDATE writes, or its error at the name: no such table, a materialized or
 * live view (written by its refresh only), a suspended table (QuestDB refusing writes to it).
 */
export function writableTable(catalog: Catalog, name: string, pos: number): Table {
  if (!catalog.exists(name)) throw new SvcError('SQL', `table does not exist [table=${name}]`, { position: pos });
  const table = catalog.get(name);
  if (table.mv !== null)
    throw new SvcError(
      'SQL',
      `cannot modify ${table.mv.def.live ? 'live' : 'materialized'} view [view=${table.name}]`,
      {
        position: pos,
      },
    );
  if (catalog.isSuspended(table.name))
    throw new SvcError('SQL', `table is suspended, writes are denied [table=${table.name}]`, { position: pos });
  return table;
}
