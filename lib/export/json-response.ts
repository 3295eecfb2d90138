// The /exec query response (SPEC.md "Query response"), streamed: the head
// (query, columns, timestamp) and the dataset rows batch by batch into
// ChunkWriter chunks, then count (always, as QuestDB sends it: clients read
// it on every answer), timings and explain. An error after rows
// went out still ends the body as valid JSON naming it ("error", "errorPos"),
// as QuestDB does, and is left in stats.error for the handler to log; before
// that it propagates so the handler can answer 400.
import { isSvcError } from '../errors/svc-error.js';
import type { SelectStatement } from '../exec/engine.js';
import type { Batch } from '../core/batch.js';
import { resultColumn } from '../core/column-type.js';
import { ChunkWriter } from './chunk-writer.js';
import { windowRows, type RowStats, type RowWindow } from './row-window.js';
import type { FormatPool } from './format-pool.js';
import { formatSlices } from './row-slices.js';

export interface JsonResponseOptions {
  readonly query: string;
  /** Omit `columns`. */
  readonly nm: boolean;
  /**
   * count=true: `count` is every row the query matches (read past the window).
   * Otherwise it is the rows read to fill the window, as QuestDB counts them:
   * the matched rows up to the window's end.
   */
  readonly count: boolean;
  readonly timings: boolean;
  readonly explain: boolean;
  readonly quoteLargeNum: boolean;
  readonly window: RowWindow | null;
  /** Time compile() took, for timings. */
  readonly compileNanos: number;
  /** A helper thread that formats large slices alongside this one (null: all here). */
  readonly pool?: FormatPool | null;
}

export async function* jsonQueryBody(
  stmt: Pick<SelectStatement, 'fields' | 'timestamp'>,
  rows: AsyncIterable<Batch>,
  opts: JsonResponseOptions,
  stats: RowStats,
): AsyncGenerator<Buffer> {
  const w = new ChunkWriter();
  w.utf8(`{"query":${JSON.stringify(opts.query)},`);
  if (!opts.nm) {
    w.utf8(`"columns":${JSON.stringify(stmt.fields.map((f) => resultColumn(f.name, f.type)))},`);
  }
  w.ascii(`"timestamp":${stmt.timestamp},"dataset":[`);
  const started = process.hrtime.bigint();
  let streamed = false;
  try {
    const slices = windowRows(rows, opts.window, opts.count, stats);
    for await (const chunk of formatSlices(
      slices,
      { kind: 'json', quoteLargeNum: opts.quoteLargeNum },
      stmt.fields.map((f) => f.type),
      w,
      opts.pool ?? null,
    )) {
      streamed = true;
      yield chunk;
    }
  } catch (e) {
    if (!streamed) throw e;
    // The status line and part of the body are gone: finish the JSON with the error in it.
    const err = isSvcError(e) ? e : null;
    w.utf8(`],"error":${JSON.stringify(err ? err.message : 'internal error')},"errorPos":${err?.position ?? 0}}`);
    stats.error = e;
    yield w.take();
    return;
  }
  w.byte(93);
  const win = opts.window;
  const count = opts.count || win === null || win.last !== null ? stats.matched : Math.min(stats.matched, win.hi);
  w.ascii(`,"count":${count}`);
  if (opts.timings) {
    const execute = Number(process.hrtime.bigint() - started);
    w.ascii(`,"timings":{"authentication":0,"compiler":${opts.compileNanos},"execute":${execute},"count":0}`);
  }
  if (opts.explain) w.ascii(',"explain":{"jitCompiled":false}');
  w.byte(125);
  yield w.take();
}
