// Server and session facts as QuestDB answers them to PostgreSQL tools (its catalogue functions):
// version() (QuestDB's PostgreSQL-compatible banner), build() (svcdb's own), current_database() /
// current_catalog ('qdb'), current_schema() ('public'), current_schemas(b) ('{public}': QuestDB's
// one-element text array, here in PostgreSQL's text form), current_user() / session_user()
// ('admin', QuestDB's default user), pg_is_in_recovery() (false), pg_postmaster_start_time()
// (when this process started), flush_query_cache() (true: svcdb keeps no plan cache) and
// cancel_query(id) (stops a running statement: true when one with that id was running),
// size_pretty(bytes) (QuestDB's human-readable size, as table_partitions() shows it),
// reload_config() (reads server.conf again: true when a reloadable key such as
// query.tracing.enabled changed, false otherwise and outside a database). The
// pg_catalog.-prefixed names answer the same.
import { VERSION } from '../version.js';
import { asDoubles, fromDoubles, textAt, textVector } from '../core/vec.js';
import { sizePretty } from '../core/number-format.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { FunctionRegistry, KernelContext } from './registry.js';
import { accept, defineScalar } from './signature.js';

/** QuestDB's version() banner, which PostgreSQL drivers parse. */
export const PG_VERSION_BANNER = 'PostgreSQL 12.3, compiled by Visual C++ build 1914, 64-bit, QuestDB';

/** When this process started, in epoch micros. */
const STARTED = Math.round((Date.now() - process.uptime() * 1000) * 1000);

function text(value: string) {
  return {
    args: [],
    build: () => ({
      type: 'STRING' as const,
      kernel: (_args: readonly ColumnVector[], n: number) => textVector('STRING', new Array<string>(n).fill(value)),
    }),
  };
}

function bool(value: boolean) {
  return {
    args: [],
    build: () => ({
      type: 'BOOLEAN' as const,
      kernel: (_args: readonly ColumnVector[], n: number): ColumnVector => ({
        kind: 'fixed',
        type: 'BOOLEAN',
        data: new Uint8Array(n).fill(value ? 1 : 0),
      }),
    }),
  };
}

export function registerMeta(registry: FunctionRegistry): void {
  defineScalar(registry, ['version', 'pg_catalog.version'], [text(PG_VERSION_BANNER)]);
  defineScalar(registry, 'build', [text(`Build Information: svcdb ${VERSION}, Node.js ${process.versions.node}`)]);
  defineScalar(registry, ['current_database', 'pg_catalog.current_database', 'current_catalog'], [text('qdb')]);
  defineScalar(registry, ['current_schema', 'pg_catalog.current_schema'], [text('public')]);
  defineScalar(registry, ['current_user', 'session_user'], [text('admin')]);
  const schemas = text('{public}');
  defineScalar(registry, ['current_schemas', 'pg_catalog.current_schemas'], [{ ...schemas, args: [accept.boolean] }]);
  defineScalar(registry, ['pg_is_in_recovery', 'pg_catalog.pg_is_in_recovery'], [bool(false)]);
  defineScalar(registry, 'flush_query_cache', [bool(true)]);
  // reload_config(): reads server.conf once per call of its kernel (a batch of rows), not per row; QuestDB's false when nothing changed.
  defineScalar(registry, 'reload_config', [
    {
      args: [],
      build: () => ({
        type: 'BOOLEAN',
        deterministic: false,
        kernel: (_args: readonly ColumnVector[], n: number, kx: KernelContext): ColumnVector => {
          const changed = kx.config?.reload() === true;
          return { kind: 'fixed', type: 'BOOLEAN', data: new Uint8Array(n).fill(changed ? 1 : 0) };
        },
      }),
    },
  ]);
  registerSizePretty(registry);
  // cancel_query(id): true when the statement query_activity() lists under id was running and is now told to stop.
  defineScalar(registry, 'cancel_query', [
    {
      args: [accept.long],
      build: () => ({
        type: 'BOOLEAN',
        deterministic: false,
        kernel: (args: readonly ColumnVector[], n: number, kx: KernelContext): ColumnVector => {
          const ids = asDoubles(args[0]!);
          const data = new Uint8Array(n);
          for (let i = 0; i < n; i++) {
            const id = ids[i]!;
            data[i] = Number.isNaN(id) || id < 0 || kx.activity?.cancel(id) !== true ? 0 : 1;
          }
          return { kind: 'fixed', type: 'BOOLEAN', data };
        },
      }),
    },
  ]);
  registerPgCatalog(registry);
  defineScalar(registry, 'pg_postmaster_start_time', [
    {
      args: [],
      build: () => ({
        type: 'TIMESTAMP',
        kernel: (_args: readonly ColumnVector[], n: number) =>
          fromDoubles('TIMESTAMP', new Float64Array(n).fill(STARTED)),
      }),
    },
  ]);
}

/** Process-wide, as QuestDB's: each txid_current() call takes the next number. */
let txid = 0;

/**
 * The catalogue's scalar functions PostgreSQL tools call (QuestDB's stubs): pg_get_expr,
 * pg_get_partkeydef and format_type NULL; pg_get_userbyid 'public'; pg_table_is_visible true;
 * age 0; txid_current the next transaction number; current_setting('server_version_num')
 * '123000' and '' for any other setting; pg_advisory_unlock_all() NULL (nothing to release).
 */
function registerPgCatalog(registry: FunctionRegistry): void {
  const both = (n: string): string[] => [n, `pg_catalog.${n}`];
  defineScalar(registry, both('pg_get_expr'), [
    { ...nullText(), args: [accept.any, accept.long] },
    { ...nullText(), args: [accept.any, accept.long, accept.boolean] },
  ]);
  defineScalar(registry, both('pg_get_partkeydef'), [{ ...nullText(), args: [accept.long] }]);
  // Connection pools call it to reset a session; svcdb holds no advisory locks: NULL, PostgreSQL's void.
  defineScalar(registry, 'pg_advisory_unlock_all', [{ ...nullText(), args: [] }]);
  defineScalar(registry, both('format_type'), [{ ...nullText(), args: [accept.long, accept.long] }]);
  defineScalar(registry, both('pg_get_userbyid'), [{ ...text('public'), args: [accept.long] }]);
  defineScalar(registry, both('pg_table_is_visible'), [{ ...bool(true), args: [accept.long] }]);
  defineScalar(registry, both('age'), [
    {
      args: [accept.any],
      build: () => ({
        type: 'LONG',
        kernel: (_args: readonly ColumnVector[], n: number) => fromDoubles('LONG', new Float64Array(n)),
      }),
    },
  ]);
  defineScalar(registry, both('txid_current'), [
    {
      args: [],
      build: () => ({
        type: 'LONG',
        deterministic: false,
        kernel: (_args: readonly ColumnVector[], n: number) => {
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) out[i] = ++txid;
          return fromDoubles('LONG', out);
        },
      }),
    },
  ]);
  defineScalar(registry, both('current_setting'), [
    {
      args: [accept.text],
      build: () => ({
        type: 'STRING',
        kernel: (args: readonly ColumnVector[], n: number) => {
          const out = new Array<string>(n);
          for (let i = 0; i < n; i++) out[i] = textAt(args[0]!, i) === 'server_version_num' ? '123000' : '';
          return textVector('STRING', out);
        },
      }),
    },
  ]);
}

/** A STRING function that is always NULL. */
function nullText() {
  return {
    args: [],
    build: () => ({
      type: 'STRING' as const,
      kernel: (_args: readonly ColumnVector[], n: number) => textVector('STRING', new Array<null>(n).fill(null)),
    }),
  };
}

/** size_pretty(bytes): QuestDB's human-readable size (core/number-format.ts sizePretty); NULL for NULL. */
export function registerSizePretty(registry: FunctionRegistry): void {
  defineScalar(registry, 'size_pretty', [
    {
      args: [accept.long],
      build: () => ({
        type: 'STRING',
        kernel: (args: readonly ColumnVector[], n: number) => {
          const v = asDoubles(args[0]!);
          const out = new Array<string | null>(n);
          for (let i = 0; i < n; i++) out[i] = v[i] !== v[i] ? null : sizePretty(v[i]!);
          return textVector('STRING', out);
        },
      }),
    },
  ]);
}
