// CREATE [OR REPLACE] VIEW, ALTER VIEW, DROP VIEW and COMPILE VIEW. A view's query is bound when
// the statement is compiled (errors at their place in the statement; a view that would read
// itself, directly or through others, is refused), and stored as written (storage/views.ts).
import { SvcError } from '../errors/svc-error.js';
import type * as A from '../sql/ast.js';
import { bindQuery, bindView } from '../sql/binder.js';
import type { Catalog } from '../storage/catalog.js';
import type { ExecContext } from './context.js';
import type { DdlEnv } from './ddl.js';

type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

/** QuestDB's names of the statement types, as /validate reports them. */
export function viewQueryType(stmt: A.CreateView | A.ViewCommand): string {
  if (stmt.kind === 'createView') return stmt.alter ? 'ALTER VIEW' : 'CREATE VIEW';
  return stmt.kind === 'dropView' ? 'DROP VIEW' : 'COMPILE VIEW';
}

export function runViewDdl(stmt: A.CreateView | A.ViewCommand, catalog: Catalog, env: DdlEnv): Prepared {
  const existing = catalog.view(stmt.name);
  const isTable = existing === null && catalog.exists(stmt.name);
  if (stmt.kind === 'createView') {
    if (stmt.alter && existing === null) {
      if (isTable) throw new SvcError('SQL', 'view expected, got table', { position: stmt.namePos });
      throw new SvcError('SQL', `view does not exist [view=${stmt.name}]`, { position: stmt.namePos });
    }
    if (isTable) throw new SvcError('SQL', `table already exists [table=${stmt.name}]`, { position: stmt.namePos });
    if (existing !== null && !stmt.alter && !stmt.orReplace) {
      if (stmt.ifNotExists) return () => Promise.resolve({ rows: 0 });
      throw new SvcError('SQL', `view already exists [view=${existing.name}]`, { position: stmt.namePos });
    }
    // Bound as a query that is already this view: a query reading it (through other views too) is circular.
    bindQuery(stmt.query, { catalog, ...env, viewPath: [stmt.name] });
    return async (cx) => {
      const replace = stmt.alter || stmt.orReplace;
      catalogCall(() => catalog.putView(stmt.name, stmt.sql, cx.statementMicros, { replace }), stmt.namePos);
      return { rows: 0 };
    };
  }
  if (existing === null) {
    if (isTable) throw new SvcError('SQL', 'view expected, got table', { position: stmt.namePos });
    if (stmt.kind === 'dropView' && stmt.ifExists) return () => Promise.resolve({ rows: 0 });
    throw new SvcError('SQL', `view does not exist [view=${stmt.name}]`, { position: stmt.namePos });
  }
  if (stmt.kind === 'compileView') {
    bindView(existing, { catalog, ...env }, stmt.namePos);
    return () => Promise.resolve({ rows: 0 });
  }
  return () => {
    catalogCall(() => catalog.dropView(stmt.name, { ifExists: stmt.ifExists }), stmt.namePos);
    return Promise.resolve({ rows: 0 });
  };
}

/** A catalog error without a position (the name's check, a full disk's 507 keeps its own) placed at `pos`. */
function catalogCall(f: () => unknown, pos: number): void {
  try {
    f();
  } catch (e) {
    if (e instanceof SvcError && e.position === undefined && e.status < 500) {
      throw new SvcError('SQL', e.message, { position: pos });
    }
    throw e;
  }
}
