// Anchored windows (`ANCHOR DAILY 'HH:MM' ['zone']`, `ANCHOR EXPRESSION expr`, QuestDB's live
// views): the window's functions restart at each boundary, which the binder expresses as one more
// PARTITION BY key, the anchor's value for each row (QuestDB's own tests compare an anchored window
// with `PARTITION BY sym, <anchor expression>`). Checked here with QuestDB's rules.
import { SvcError } from '../errors/svc-error.js';
import { resolveZone, type ZoneOffsetAt } from '../core/time-zones.js';
import { asDoubles, fromDoubles } from '../core/vec.js';
import type { Kernel } from '../functions/registry.js';
import type * as A from './ast.js';
import { bindExpr, type ExprContext } from './bind-expr.js';
import type { BoundExpr } from './bound.js';
import { isConstant } from './const-value.js';
import { walkTree } from './tree-walk.js';

const DAY = 86_400_000_000;
const ORDER = 'ANCHOR requires ORDER BY the designated timestamp ascending';

/**
 * The partition key an anchored window adds: checks the window's ORDER BY (the designated
 * timestamp, `timestamp` in the scope, ascending, alone) and frame (the default one), then binds
 * the anchor.
 */
export function bindAnchor(
  anchor: A.WindowAnchor,
  spec: A.WindowSpec,
  orderBy: ReadonlyArray<{ readonly expr: BoundExpr; readonly desc: boolean }>,
  timestamp: number,
  cx: ExprContext,
): BoundExpr {
  if (orderBy.length === 0) throw new SvcError('SQL', ORDER, { position: anchor.pos });
  const first = orderBy[0]!;
  if (orderBy.length > 1 || first.desc || first.expr.kind !== 'col' || first.expr.index !== timestamp || timestamp < 0)
    throw new SvcError('SQL', ORDER, { position: spec.orderBy[orderBy.length > 1 ? 1 : 0]!.pos });
  const f = spec.frame;
  // The default frame, or the same said in words: from the partition's start to the current row.
  if (
    f !== null &&
    (f.unit === 'GROUPS' ||
      f.start.type !== 'UNBOUNDED PRECEDING' ||
      f.end.type !== 'CURRENT ROW' ||
      (f.exclude !== null && f.exclude !== 'NO OTHERS'))
  )
    throw new SvcError('SQL', 'ANCHOR is incompatible with bounded frames', { position: f.pos });
  return anchor.kind === 'daily' ? dailyKey(anchor, first.expr) : expressionKey(anchor, cx);
}

/** `ANCHOR EXPRESSION e`: e's value, deterministic, not constant, a TIMESTAMP, LONG or INT. */
function expressionKey(anchor: Extract<A.WindowAnchor, { kind: 'expression' }>, cx: ExprContext): BoundExpr {
  const pos = anchor.expr.pos;
  if (hasQuery(anchor.expr))
    throw new SvcError('SQL', 'ANCHOR EXPRESSION must not contain subqueries', { position: pos });
  const e = bindExpr(anchor.expr, { ...cx, windowError: 'window function is not allowed in ANCHOR EXPRESSION' });
  if (!deterministic(e)) throw new SvcError('SQL', 'ANCHOR EXPRESSION must be deterministic', { position: pos });
  if (isConstant(e)) throw new SvcError('SQL', 'ANCHOR EXPRESSION must not be a constant', { position: pos });
  if (e.type !== 'TIMESTAMP' && e.type !== 'LONG' && e.type !== 'INT')
    throw new SvcError('SQL', `ANCHOR EXPRESSION must return TIMESTAMP, LONG or INT, not ${e.type}`, {
      position: pos,
    });
  return e;
}

/** Whether no call in `e` is non-deterministic (now(), rnd_*()); `e` holds no subquery (hasQuery refused them). */
function deterministic(e: BoundExpr): boolean {
  let found = false;
  walkTree(e, (o) => (found = o.kind === 'call' && (o.fn as { deterministic?: boolean }).deterministic !== true));
  return !found;
}

/** Whether an expression holds a subquery (any node with a query). */
function hasQuery(root: unknown): boolean {
  let found = false;
  walkTree(root, (o) => (found = o.kind === 'subquery' || 'query' in o));
  return found;
}

/**
 * `ANCHOR DAILY 'HH:MM' [zone]`: the start of the day-long period the row is in, the day starting
 * at HH:MM wall time in the zone (UTC by default). As QuestDB's anchor (a timestamp_floor of the
 * local time): the floored wall time is turned back into an instant with the zone's offset there,
 * found from the row's own offset, so a fall-back hour that repeats HH:MM starts a new period
 * twice; without a zone and at a time past midnight, rows before 1970-01-01THH:MM are in the
 * first period (the three-argument timestamp_floor's origin).
 */
function dailyKey(anchor: Extract<A.WindowAnchor, { kind: 'daily' }>, ts: BoundExpr): BoundExpr {
  const m = /^(\d{2}):(\d{2})$/.exec(anchor.time);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59)
    throw new SvcError('SQL', `ANCHOR DAILY time must be 'HH:MM' (24-hour) [value=${anchor.time}]`, {
      position: anchor.timePos,
    });
  const hm = (Number(m[1]) * 60 + Number(m[2])) * 60_000_000;
  let zone: ZoneOffsetAt | null = null;
  if (anchor.zone !== null) {
    zone = resolveZone(anchor.zone);
    if (zone === null) throw new SvcError('SQL', `invalid timezone: ${anchor.zone}`, { position: anchor.zonePos });
  }
  return {
    kind: 'call',
    // The name tells anchors apart where bound expressions are compared by their text (the window's sort sharing, EXPLAIN).
    name: `anchor_daily[${anchor.time}${anchor.zone === null ? '' : ` ${anchor.zone}`}]`,
    fn: { type: 'TIMESTAMP', kernel: dailyKernel(hm, zone), deterministic: true },
    args: [ts],
    type: 'TIMESTAMP',
    pos: anchor.pos,
  };
}

/** The period's start (see dailyKey) of each timestamp; NULL stays NULL. */
export function dailyKernel(hm: number, zone: ZoneOffsetAt | null): Kernel {
  return (args, n) => {
    const ts = asDoubles(args[0]!);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = dailyStart(ts[i]!, hm, zone);
    return fromDoubles('TIMESTAMP', out);
  };
}

/** One row's period start (NaN for NULL). */
export function dailyStart(us: number, hm: number, zone: ZoneOffsetAt | null): number {
  if (us !== us) return NaN;
  if (zone === null) return hm !== 0 && us < hm ? hm : Math.floor((us - hm) / DAY) * DAY + hm;
  const own = zone(us);
  const wall = Math.floor((us + own - hm) / DAY) * DAY + hm;
  return wall - zone(wall - own);
}
