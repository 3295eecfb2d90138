// Rows of tables(), table_columns('t'), SHOW TABLES / COLUMNS / CREATE TABLE,
// read from the catalog when the query runs.
import type { Catalog } from '../storage/catalog.js';
import type { Batch } from '../storage/table-reader.js';
import { typeName } from '../storage/column-type.js';
import type { Plan } from '../sql/bound.js';
import { fromValues, type Value } from './vectors.js';

type MetadataPlan = Extract<Plan, { kind: 'metadata' }>;

export function metadataRows(plan: MetadataPlan, catalog: Catalog): Batch {
  const rows: Value[][] = [];
  if (plan.what === 'tables') {
    catalog.tables().forEach((t, i) => {
      const m = t.meta;
      if (plan.fields.length === 1) { rows.push([m.name]); return; }
      const ts = m.columns.find((c) => c.id === m.timestampId);
      const parts = t.txn.partitions;
      const rowCount = parts.reduce((s, p) => s + p.rows, 0);
      rows.push([i + 1, m.name, ts?.name ?? null, m.partitionBy, false, false, 0, 'HOUR', false, m.name,
        m.maxUncommittedRows, m.o3MaxLag, t.error !== null, 'T', rowCount,
        ts && parts.length ? parts[0]!.minTs : null, ts && parts.length ? parts[parts.length - 1]!.maxTs : null]);
    });
  } else if (plan.what === 'columns') {
    const m = catalog.get(plan.table!).meta;
    for (const c of m.columns) {
      const sym = c.type === 'SYMBOL';
      rows.push([c.name, typeName(c.type), false, 0, sym, sym ? 256 : 0, sym ? (catalog.get(plan.table!).dicts.get(c.id)?.values.length ?? 0) : 0, c.id === m.timestampId, false]);
    }
  } else {
    rows.push([createTableDdl(catalog, plan.table!)]);
  }
  const columns = plan.fields.map((f, c) => fromValues(f.type, rows.map((r) => r[c] ?? null)));
  return { rowCount: rows.length, columns };
}

/** The CREATE TABLE statement that recreates the table's structure (SHOW CREATE TABLE). */
export function createTableDdl(catalog: Catalog, table: string): string {
  const m = catalog.get(table).meta;
  const cols = m.columns.map((c) => `\t${quote(c.name)} ${typeName(c.type)}`).join(',\n');
  const ts = m.columns.find((c) => c.id === m.timestampId);
  let ddl = `CREATE TABLE '${m.name}' ( \n${cols}\n)`;
  if (ts) ddl += ` timestamp(${quote(ts.name)})`;
  if (m.partitionBy !== 'NONE') ddl += ` PARTITION BY ${m.partitionBy}`;
  ddl += `\nWITH maxUncommittedRows=${m.maxUncommittedRows}, o3MaxLag=${Math.round(m.o3MaxLag)}us;`;
  return ddl;
}

function quote(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
