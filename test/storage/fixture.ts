// Shared set-up for storage unit tests: a catalog in a temporary folder, and
// batches turned into plain rows for comparisons.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog, type CatalogOptions } from '../../lib/storage/catalog.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import type { TableReader, ScanOptions } from '../../lib/storage/table-reader.js';

export const DAY = 86_400_000_000;

export function tempDb(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-storage-'));
  return { dir: join(dir, 'db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function openCatalog(dir: string, o: Partial<CatalogOptions> = {}): Catalog {
  return Catalog.open(dir, {
    commitMode: 'nosync',
    writerWaitMs: 200,
    readerCacheSize: 16 << 20,
    maxUncommittedRows: 500_000,
    o3MaxLag: 0,
    ...o,
  });
}

const decoder = new TextDecoder();

/** The value of row i of a vector as a plain JS value (null for NULL). */
export function valueAt(v: ColumnVector, i: number): unknown {
  switch (v.kind) {
    case 'symbol':
      return v.keys[i]! < 0 ? null : v.dict[v.keys[i]!];
    case 'var':
      return v.nulls?.[i] ? null : decoder.decode(v.bytes.subarray(v.offsets[i], v.offsets[i + 1]));
    case 'fixed': {
      const x = v.data[i]!;
      if (v.type === 'DOUBLE' || v.type === 'FLOAT') return Number.isNaN(x) ? null : x;
      if (v.type === 'INT') return x === -0x80000000 ? null : x;
      if (v.type === 'LONG' || v.type === 'TIMESTAMP' || v.type === 'DATE')
        return x === -9223372036854775808 ? null : x;
      if (v.type === 'BOOLEAN') return x === 1;
      return x;
    }
  }
}

/** Every row of a scan as an array of values, columns in scan order. */
export function rows(r: TableReader, opts: ScanOptions = {}): unknown[][] {
  const out: unknown[][] = [];
  for (const b of r.scan(opts)) {
    for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i)));
  }
  return out;
}

/** Reads the whole table through a fresh reader. */
export function readAll(c: Catalog, table: string, opts: ScanOptions = {}): unknown[][] {
  const r = c.reader(table);
  try {
    return rows(r, opts);
  } finally {
    r.close();
  }
}
