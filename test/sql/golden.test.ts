// Runs the SQL golden files in test/sql/golden/ through the one entry point,
// compile(): `statement ok`, `statement error <position>` (the message under
// `----` is a regular expression) and `query` records whose expected output
// is a `name:TYPE | ...` header and one `a | b` line per row (newlines in values as \n).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Catalog } from '../../lib/storage/catalog.js';
import { compile } from '../../lib/exec/engine.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { renderValue } from './render.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { renderAt } from '../../lib/core/render.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import { ENGINE } from '../helpers/engine.js';

const DIR = fileURLToPath(new URL('../../../test/sql/golden/', import.meta.url));

interface GoldenRecord {
  readonly line: number;
  readonly kind: 'ok' | 'error' | 'query';
  readonly sql: string;
  readonly position?: number;
  readonly expected: string[];
}

function parseGolden(text: string): GoldenRecord[] {
  const lines = text.split('\n');
  const out: GoldenRecord[] = [];
  let i = 0;
  while (i < lines.length) {
    const head = lines[i]!.trim();
    if (head === '' || head.startsWith('#')) {
      i++;
      continue;
    }
    const line = i + 1;
    let kind: GoldenRecord['kind'];
    let position: number | undefined;
    const m = /^statement error (\d+)$/.exec(head);
    if (head === 'statement ok') kind = 'ok';
    else if (m) {
      kind = 'error';
      position = Number(m[1]);
    } else if (head === 'query') kind = 'query';
    else throw new Error(`line ${line}: expected a record header, got: ${head}`);
    i++;
    const sql: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && lines[i]!.trim() !== '----') sql.push(lines[i++]!);
    const expected: string[] = [];
    if (i < lines.length && lines[i]!.trim() === '----') {
      i++;
      while (i < lines.length && lines[i]!.trim() !== '') expected.push(lines[i++]!.trimEnd());
    }
    out.push({ line, kind, sql: sql.join('\n'), position, expected });
  }
  return out;
}

async function runFile(file: string): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-golden-'));
  const catalog = Catalog.open(join(root, 'db'), {
    commitMode: 'nosync',
    writerWaitMs: 1000,
    readerCacheSize: 32 << 20,
    maxUncommittedRows: 500_000,
    o3MaxLag: 0,
  });
  const signal = new AbortController().signal;
  try {
    for (const r of parseGolden(readFileSync(join(DIR, file), 'utf8'))) {
      const where = `${file}:${r.line}: ${r.sql.replace(/\s+/g, ' ').slice(0, 120)}`;
      if (r.kind === 'error') {
        let err: unknown;
        try {
          const s = compile(r.sql, { ...ENGINE, catalog });
          if (s.kind === 'select') {
            for await (const b of s.execute(signal)) void b;
          } else await s.execute(signal);
        } catch (e) {
          err = e;
        }
        assert.ok(
          err instanceof SvcError,
          `${where}\nexpected an SvcError, got ${err === undefined ? 'success' : String(err)}`,
        );
        assert.equal(err.position, r.position, `${where}\nposition of: ${err.message}`);
        if (r.expected.length > 0) assert.match(err.message, new RegExp(r.expected.join('\n')), where);
        continue;
      }
      let s;
      try {
        s = compile(r.sql, { ...ENGINE, catalog });
      } catch (e) {
        assert.fail(`${where}\n${e instanceof SvcError ? `${e.message} at ${e.position}` : String(e)}`);
      }
      if (r.kind === 'ok') {
        if (s.kind === 'select') {
          for await (const b of s.execute(signal)) void b;
        } else await s.execute(signal);
        continue;
      }
      assert.equal(s.kind, 'select', `${where}: not a query`);
      if (s.kind !== 'select') continue;
      const got = [s.fields.map((f) => `${f.name}:${f.type}`).join(' | ')];
      for await (const b of s.execute(signal)) {
        // A value's newlines are written \n so a row stays one line of the file.
        // LONG through renderAt, which reads the exact int64 of values past 2^53; UUID, LONG128,
        // IPV4, LONG256, INTERVAL and DECIMAL through it too, as the HTTP API prints them.
        const cell = (c: ColumnVector, k: number, i: number): string =>
          c.kind === 'fixed' &&
          (c.type === 'LONG' ||
            c.type.startsWith('DECIMAL(') ||
            c.type === 'UUID' ||
            c.type === 'LONG128' ||
            c.type === 'IPV4' ||
            c.type === 'LONG256' ||
            c.type === 'INTERVAL')
            ? (renderAt(c, i) ?? 'null')
            : renderValue(valueAt(c, i), s.fields[k]!.type);
        for (let i = 0; i < b.rowCount; i++)
          got.push(b.columns.map((c, k) => cell(c, k, i).replace(/\n/g, '\\n')).join(' | '));
      }
      assert.deepEqual(got, r.expected, where);
    }
  } finally {
    catalog.close();
    rmSync(root, { recursive: true, force: true });
  }
}

for (const file of readdirSync(DIR)
  .filter((f) => f.endsWith('.test'))
  .sort()) {
  test(`golden ${file}`, () => runFile(file));
}
