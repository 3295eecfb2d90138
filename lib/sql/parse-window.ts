// Window parsing: the OVER (...) specification of window functions, named windows,
// and frames (ROWS/RANGE/GROUPS ... EXCLUDE), which WINDOW JOIN's RANGE reuses.

import type { Expr, FrameBound, OrderItem, WindowAnchor, WindowFrame, WindowSpec } from './ast.js';
import type { Cursor, Mutable } from './parse-cursor.js';
import { parseExpr, parseExprList, parseOrderList, P_BOR } from './parse-expr.js';

/** Words that open a window specification's parts, so they cannot be the name of a base window. */
const SPEC_WORDS: ReadonlySet<string> = new Set(['PARTITION', 'ROWS', 'RANGE', 'GROUPS', 'CUMULATIVE', 'ANCHOR']);

/** `( [name] [PARTITION BY ...] [ORDER BY ...] [frame] )`, the body of OVER and of WINDOW w AS. */
export function parseWindowSpec(c: Cursor): WindowSpec {
  const open = c.expectOp('(');
  let name: string | null = null;
  let namePos = -1;
  if (c.isPlainWord() && !SPEC_WORDS.has(c.tok.up)) {
    namePos = c.tok.pos;
    name = c.next().text;
  }
  let partitionBy: Expr[] = [];
  if (c.isKw('PARTITION')) {
    c.next();
    if (!c.isKw('BY')) throw c.error("'by' expected after 'partition'", c.tok.pos);
    c.next();
    partitionBy = parseExprList(c);
  }
  let orderBy: OrderItem[] = [];
  if (c.isKw('ORDER')) {
    c.next();
    c.expectKw('BY');
    if (c.isOp(')') || c.atEnd()) throw c.error('Expression expected', c.tok.pos);
    orderBy = parseOrderList(c);
  }
  let frame: WindowFrame | null = null;
  let anchor: WindowAnchor | null = null;
  // ANCHOR may come before or after the frame (QuestDB accepts both orders).
  for (;;) {
    if (anchor === null && c.isKw('ANCHOR')) anchor = parseAnchor(c);
    else if (frame === null && (c.isKw('ROWS') || c.isKw('RANGE') || c.isKw('GROUPS'))) frame = parseFrame(c);
    else if (frame === null && c.isKw('CUMULATIVE')) {
      const t = c.next();
      frame = {
        kind: 'frame',
        pos: t.pos,
        unit: 'ROWS',
        exclude: null,
        start: { type: 'UNBOUNDED PRECEDING', offset: null, unit: null, pos: t.pos },
        end: { type: 'CURRENT ROW', offset: null, unit: null, pos: t.pos },
      };
    } else break;
  }
  c.expectOp(')');
  const spec: Mutable<WindowSpec> = { kind: 'window', pos: open.pos, partitionBy, orderBy, frame };
  if (name !== null) {
    spec.name = name;
    spec.namePos = namePos;
  }
  if (anchor !== null) spec.anchor = anchor;
  return spec;
}

/** `ANCHOR DAILY 'HH:MM' ['zone']` or `ANCHOR EXPRESSION expr` (the binder checks the time, zone and expression). */
function parseAnchor(c: Cursor): WindowAnchor {
  const pos = c.next().pos;
  if (c.acceptKw('DAILY')) {
    const t = c.tok;
    if (t.kind !== 'string') throw c.error("ANCHOR DAILY expects a quoted 'HH:MM' time", t.pos);
    c.next();
    let zone: string | null = null;
    let zonePos = -1;
    if (c.tok.kind === 'string') {
      zonePos = c.tok.pos;
      zone = c.next().text;
    }
    return { kind: 'daily', pos, time: t.text, timePos: t.pos, zone, zonePos };
  }
  if (c.acceptKw('EXPRESSION')) {
    if (c.isOp(')') || c.atEnd()) throw c.error('Expression expected', c.tok.pos);
    return { kind: 'expression', pos, expr: parseExpr(c) };
  }
  throw c.error("'daily' or 'expression' expected after 'anchor'", c.tok.pos);
}

/** ROWS|RANGE|GROUPS [BETWEEN] bound [AND bound] [EXCLUDE ...] (also WINDOW JOIN's RANGE ... [EXCLUDE|INCLUDE PREVAILING]). */
export function parseFrame(c: Cursor): WindowFrame {
  const t = c.next();
  const unit = t.up as WindowFrame['unit'];
  let start: FrameBound;
  let end: FrameBound;
  if (c.acceptKw('BETWEEN')) {
    start = parseBound(c);
    c.expectKw('AND');
    end = parseBound(c);
  } else {
    start = parseBound(c);
    end = { type: 'CURRENT ROW', offset: null, unit: null, pos: t.pos };
  }
  let exclude: string | null = null;
  let excludePos = -1;
  if (c.isKw('EXCLUDE') || (c.isKw('INCLUDE') && c.isKwAt(1, 'PREVAILING'))) {
    const include = c.next().up === 'INCLUDE';
    const w = c.tok;
    excludePos = w.pos;
    if (include) exclude = (c.next(), 'INCLUDE PREVAILING');
    else if (c.isKw('CURRENT')) exclude = (c.next(), c.expectKw('ROW'), 'CURRENT ROW');
    else if (c.isKw('NO')) exclude = (c.next(), c.expectKw('OTHERS'), 'NO OTHERS');
    else if (c.isKw('GROUP') || c.isKw('TIES') || c.isKw('PREVAILING')) exclude = c.next().up;
    else throw c.error('CURRENT ROW, NO OTHERS, GROUP, TIES or PREVAILING expected', w.pos);
  }
  return exclude === null
    ? { kind: 'frame', pos: t.pos, unit, start, end, exclude }
    : { kind: 'frame', pos: t.pos, unit, start, end, exclude, excludePos };
}

function parseBound(c: Cursor): FrameBound {
  if (c.isKw('UNBOUNDED')) {
    c.next();
    const pos = c.tok.pos;
    if (c.acceptKw('PRECEDING')) return { type: 'UNBOUNDED PRECEDING', offset: null, unit: null, pos };
    if (c.acceptKw('FOLLOWING')) return { type: 'UNBOUNDED FOLLOWING', offset: null, unit: null, pos };
    throw c.expected("'preceding' or 'following'");
  }
  if (c.isKw('CURRENT')) {
    c.next();
    const pos = c.tok.pos;
    c.expectKw('ROW');
    return { type: 'CURRENT ROW', offset: null, unit: null, pos };
  }
  const offset = parseExpr(c, P_BOR);
  let unit: string | null = null;
  if (c.tok.kind === 'ident' && !c.isKw('PRECEDING') && !c.isKw('FOLLOWING')) unit = c.next().up;
  const pos = c.tok.pos;
  if (c.acceptKw('PRECEDING')) return { type: 'PRECEDING', offset, unit, pos };
  if (c.acceptKw('FOLLOWING')) return { type: 'FOLLOWING', offset, unit, pos };
  throw c.expected("'preceding' or 'following'");
}
