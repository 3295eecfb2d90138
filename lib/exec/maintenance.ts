// REINDEX and VACUUM TABLE (QuestDB's table maintenance). svcdb keeps no index files (a SYMBOL
// lookup goes through the column's dictionary) and removes replaced partition versions as soon as
// no reader needs them, so both validate what they name as QuestDB does and have little to do.
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import { nameKey } from '../storage/names.js';
import type * as A from '../sql/ast.js';
import type { ExecContext } from './context.js';

type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

export function runMaintenance(stmt: A.Maintenance, catalog: Catalog): Prepared {
  if (!catalog.exists(stmt.table))
    throw new SvcError('SQL', `table does not exist [table=${stmt.table}]`, { position: stmt.tablePos });
  const table = catalog.get(stmt.table);
  const meta = table.meta;
  if (stmt.op === 'vacuum') {
    // Retired partition versions and column files no reader still sees go now (Table.collect).
    return () => {
      table.collect();
      return Promise.resolve({ rows: 0 });
    };
  }
  if (stmt.column !== null) {
    const col = stmt.column;
    const c = meta.columns.find((x) => nameKey(x.name) === nameKey(col.name));
    if (!c) throw new SvcError('SQL', `Invalid column: ${col.name}`, { position: col.pos });
    if (c.indexed !== true) throw new SvcError('SQL', `Column is not indexed [name=${c.name}]`, { position: col.pos });
  }
  if (stmt.partition !== null) {
    const p = stmt.partition;
    if (meta.timestampId < 0 || meta.partitionBy === 'NONE')
      throw new SvcError('SQL', `table is not partitioned [table=${meta.name}]`, { position: p.pos });
    if (!table.txn.partitions.some((x) => x.name === p.name))
      throw new SvcError('SQL', `partition does not exist [table=${meta.name}, partition=${p.name}]`, {
        position: p.pos,
      });
  }
  // Nothing to rebuild: svcdb writes no index files (ALTER ... ADD INDEX is recorded, lookups use the dictionary).
  return () => Promise.resolve({ rows: 0 });
}
