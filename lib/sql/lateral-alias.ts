import type * as A from './ast.js';

/** One select-list item as bindSelect expands it. */
export interface SelectItem {
  readonly expr: A.Expr;
  readonly alias: string | null;
  readonly pos: number;
  readonly star: boolean;
}

/**
 * A select item may name an alias given by an item before it (`price * 2 AS p2, p2 + 1 AS p3`), as
 * QuestDB allows: the name stands for that item's expression. A column of the FROM keeps its
 * meaning (the column wins over an alias of the same name), a later item's alias is not seen
 * (so no cycle can form) and subqueries keep their own names. `columns` are the FROM's column names.
 */
export function expandLateralAliases(items: readonly SelectItem[], columns: Iterable<string>): SelectItem[] {
  const own = new Set<string>();
  for (const c of columns) own.add(c.toLowerCase());
  const seen = new Map<string, A.Expr>();
  return items.map((it) => {
    const expr = seen.size === 0 ? it.expr : substitute(it.expr, seen, own);
    const name = it.alias?.toLowerCase();
    // The first item of a name is the one later items see.
    if (name !== undefined && !own.has(name) && !seen.has(name)) seen.set(name, expr);
    return expr === it.expr ? it : { ...it, expr };
  });
}

function substitute(e: A.Expr, aliases: ReadonlyMap<string, A.Expr>, own: ReadonlySet<string>): A.Expr {
  return rewrite(e, (o) => {
    if (o.kind !== 'column' || o.table !== null) return undefined;
    const name = String(o.name).toLowerCase();
    return own.has(name) ? undefined : aliases.get(name);
  }) as A.Expr;
}

/** A copy of `n` with each object `swap` answers for replaced; queries (subqueries) are left as they are. */
function rewrite(n: unknown, swap: (o: Record<string, unknown>) => unknown): unknown {
  if (n === null || typeof n !== 'object') return n;
  if (Array.isArray(n)) {
    let changed = false;
    const out = n.map((x) => {
      const y = rewrite(x, swap);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : n;
  }
  const o = n as Record<string, unknown>;
  if (o.kind === 'select' || o.kind === 'setOp') return n;
  const s = swap(o);
  if (s !== undefined) return s;
  let copy: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(o)) {
    if (v === null || typeof v !== 'object') continue;
    const w = rewrite(v, swap);
    if (w !== v) (copy ??= { ...o })[k] = w;
  }
  return copy ?? n;
}
