// Which scanned text columns are hashed as keys above their scan (GROUP BY and
// SAMPLE BY keys, DISTINCT, UNION, LATEST ON,
// count_distinct, = and != against a constant): those scans ask the table reader
// for dictionary codes (storage/text-codes.ts), so keys are mapped once per
// distinct value instead of once per row. Found once per plan, by a walk that
// follows a key column down through projections and filters to its scan.
import type { BoundExpr, Plan } from '../sql/bound.js';
import { isConstant } from '../sql/const-value.js';
import type { SqlType } from '../core/sql-type.js';

const TEXT: ReadonlySet<SqlType> = new Set<SqlType>(['VARCHAR', 'STRING']);

/** Per scan node: the names of its columns wanted with codes (built where missing). */
const wanted = new WeakMap<Plan, Set<string>>();
/** Per scan node: the names of its columns wanted with codes only where a partition has them already. */
const wantedIfBuilt = new WeakMap<Plan, Set<string>>();
const walked = new WeakSet<Plan>();

/** Finds the hashed text columns of every scan under `root` (once per plan: plans do not change). */
export function markTextKeys(root: Plan): void {
  if (walked.has(root)) return;
  walked.add(root);
  visit(root);
}

/** The columns of scan node `scan` that its consumers hash, when markTextKeys found any. */
export function textKeyColumns(scan: Plan): ReadonlySet<string> | undefined {
  return wanted.get(scan);
}

/** The columns of scan node `scan` wanted with the codes their partitions have built (wantTextOutputs without building). */
export function builtTextColumns(scan: Plan): ReadonlySet<string> | undefined {
  return wantedIfBuilt.get(scan);
}

/**
 * Marks every text column of `root`'s output that is a scan's column (through projections,
 * filters, sorts) as wanted with codes: for a writer that builds a dictionary of each column
 * (a Parquet export), which then maps each distinct value once instead of hashing every row.
 */
export function wantTextOutputs(root: Plan): void {
  for (let i = 0; i < root.fields.length; i++) want(root, i, wanted);
}

/**
 * The same marks, honoured only where a partition has its codes built already (after an
 * import, a grouping query, a Parquet export): for a writer that writes each row's text
 * (a CSV export), for which building them would cost what it saves.
 */
export function wantBuiltTextOutputs(root: Plan): void {
  for (let i = 0; i < root.fields.length; i++) want(root, i, wantedIfBuilt);
}

/** Marks output `index` of `p` as a hashed key, down to the scan column it is. */
function want(p: Plan, index: number, marks: WeakMap<Plan, Set<string>> = wanted): void {
  switch (p.kind) {
    case 'scan': {
      const name = p.columns[index];
      if (name === undefined || !TEXT.has(p.fields[index]!.type)) return;
      let set = marks.get(p);
      if (set === undefined) marks.set(p, (set = new Set()));
      set.add(name);
      return;
    }
    case 'filter':
    case 'designate':
    case 'reverse':
    case 'limit':
    case 'sort':
      want(p.input, index, marks);
      return;
    case 'project': {
      const e = p.exprs[index];
      if (e !== undefined && e.kind === 'col') want(p.input, e.index, marks);
      return;
    }
    default:
      return;
  }
}

/** Marks the columns `e` compares with =, != or IN constants (under AND / OR / NOT): compared per dictionary entry. */
function wantCompared(p: Plan, e: BoundExpr): void {
  if (e.kind !== 'call') return;
  if (e.name === 'and' || e.name === 'or' || e.name === 'not') for (const a of e.args) wantCompared(p, a);
  else if (e.name === '=' || e.name === '!=') {
    const [a, b] = e.args;
    if (a?.kind === 'col' && b?.kind === 'const') want(p, a.index);
    else if (b?.kind === 'col' && a?.kind === 'const') want(p, b.index);
  } else if (e.name === 'in_list') {
    const [a, ...list] = e.args;
    if (a?.kind === 'col' && list.every(isConstant)) want(p, a.index);
  }
}

function visit(p: Plan): void {
  switch (p.kind) {
    case 'aggregate':
      for (const k of p.keys) if (k.kind === 'col') want(p.input, k.index);
      for (const a of p.aggregates) {
        const arg = a.args[0];
        if (a.name === 'count_distinct' && arg !== undefined && arg.kind === 'col') want(p.input, arg.index);
      }
      break;
    case 'latestBy':
      for (const k of p.keys) want(p.input, k);
      break;
    case 'distinct':
      for (let i = 0; i < p.fields.length; i++) want(p.input, i);
      break;
    case 'setOp':
      for (let i = 0; i < p.fields.length; i++) {
        want(p.left, i);
        want(p.right, i);
      }
      break;
    case 'filter':
      wantCompared(p.input, p.predicate);
      break;
    default:
      break;
  }
  if ('input' in p) visit(p.input);
  if ('left' in p) visit(p.left);
  if ('right' in p) visit(p.right);
}
