// The binder against its narrow SchemaSource: any implementation (here an
// in-memory one, no storage) gives it tables; a missing table is a SQL error at
// the name, a table's own error keeps its code; the storage Catalog is one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../../lib/errors/svc-error.js';
import { bindQuery } from '../../lib/sql/binder.js';
import { parseStatement } from '../../lib/sql/parser.js';
import type { Plan } from '../../lib/sql/bound.js';
import type { SchemaSource, TableSchema } from '../../lib/sql/schema-source.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

/** Tables held in a map; `broken` names one whose schema() fails with the table's own error. */
class MemorySchemas implements SchemaSource {
  readonly calls: string[] = [];
  constructor(
    readonly tables: ReadonlyMap<string, TableSchema>,
    readonly broken: string | null = null,
  ) {}
  exists(name: string): boolean {
    return this.tables.has(name.toLowerCase()) || name === this.broken;
  }
  schema(name: string): TableSchema {
    this.calls.push(name);
    if (name === this.broken) throw new SvcError('INTERNAL', `table is corrupt [table=${name}]`);
    const t = this.tables.get(name.toLowerCase());
    if (!t) throw new SvcError('NOT_FOUND', `table does not exist [table=${name}]`);
    return t;
  }
}

const TRADES: TableSchema = {
  name: 'Trades',
  timestampId: 7,
  columns: [
    { id: 3, name: 'sym', type: 'SYMBOL' },
    { id: 7, name: 'ts', type: 'TIMESTAMP' },
    { id: 9, name: 'price', type: 'DOUBLE' },
  ],
};

function bind(sql: string, schemas: SchemaSource): Plan {
  const stmt = parseStatement(sql);
  assert.equal(stmt.kind, 'query');
  if (stmt.kind !== 'query') throw new Error('not a query');
  return bindQuery(stmt.query, {
    catalog: schemas,
    sql,
    registry: ENGINE.registry,
    statementMicros: Date.now() * 1000,
  });
}

function sqlError(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SvcError, String(e));
    return e;
  }
  assert.fail('nothing was thrown');
}

test('binds FROM a table of any SchemaSource: its columns, types and designated timestamp', () => {
  const schemas = new MemorySchemas(new Map([['trades', TRADES]]));
  const plan = bind('select * from trades', schemas);
  assert.deepEqual(plan.fields, [
    { name: 'sym', type: 'SYMBOL' },
    { name: 'ts', type: 'TIMESTAMP' },
    { name: 'price', type: 'DOUBLE' },
  ]);
  assert.equal(plan.timestamp, 1);
  assert.deepEqual(schemas.calls, ['trades']);
  const p2 = bind('select t.price p, ts from TRADES t', schemas);
  assert.deepEqual(p2.fields, [
    { name: 'p', type: 'DOUBLE' },
    { name: 'ts', type: 'TIMESTAMP' },
  ]);
  assert.equal(p2.timestamp, 1);
});

test('a table the source does not have is a SQL error at its name; a table error keeps its code, placed there', () => {
  const schemas = new MemorySchemas(new Map([['trades', TRADES]]), 'bad');
  for (const [sql, pos] of [
    ['select * from nosuch', 14],
    ['select * from trades join nosuch on sym', 26],
    ['with a as (select * from nosuch) select * from a', 25],
  ] as const) {
    const e = sqlError(() => bind(sql, schemas));
    assert.equal(e.code, 'SQL', sql);
    assert.equal(e.status, 400);
    assert.equal(e.position, pos, sql);
    assert.match(e.message, /^table does not exist \[table=nosuch\]/);
  }
  const bad = sqlError(() => bind('select * from bad', schemas));
  assert.equal(bad.code, 'INTERNAL');
  assert.equal(bad.position, 14);
  // table_columns() asks exists() alone.
  assert.equal(sqlError(() => bind("select * from table_columns('nosuch')", schemas)).position, 28);
  assert.ok(bind("select * from table_columns('trades')", schemas).fields.length > 0);
});

const { catalog } = tempCatalog('svcdb-schemas-');

test('the storage Catalog is a SchemaSource: schema() is the table as it is now, NOT_FOUND once dropped', async () => {
  const schemas: SchemaSource = catalog;
  catalog.create({
    name: 'Quotes',
    columns: [
      { name: 'bid', type: 'DOUBLE' },
      { name: 'ts', type: 'TIMESTAMP' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  assert.ok(schemas.exists('QUOTES'));
  const s = schemas.schema('quotes');
  assert.equal(s.name, 'Quotes');
  assert.deepEqual(
    s.columns.map((c) => [c.name, c.type]),
    [
      ['bid', 'DOUBLE'],
      ['ts', 'TIMESTAMP'],
    ],
  );
  assert.equal(s.columns.find((c) => c.id === s.timestampId)?.name, 'ts');
  assert.equal(bind('select * from quotes', catalog).timestamp, 1);
  await catalog.drop('quotes');
  assert.ok(!schemas.exists('quotes'));
  const e = sqlError(() => schemas.schema('quotes'));
  assert.equal(e.code, 'NOT_FOUND');
  assert.equal(sqlError(() => bind('select * from quotes', catalog)).code, 'SQL');
});
