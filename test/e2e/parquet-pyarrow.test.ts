// Parquet as a Python client reads it: a table imported by /imp (VARCHAR text
// with NULLs, empties and UTF-8, DOUBLE with NULLs, a designated TIMESTAMP)
// exported by /exp?fmt=parquet at the default codec and at others, read back
// with pyarrow (the machine's python3), types and every value checked against
// /exec. scripts/install-test-deps.sh installs pyarrow with pip where it is
// missing (Debian 12 has no package of it); a machine where that fails fails here saying so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FormData, request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const READER = `
import json, sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(json.dumps({
  "types": [str(f.type) for f in t.schema],
  "names": t.schema.names,
  "rows": [[None if v is None else (v.isoformat() if hasattr(v, "isoformat") else v) for v in r.values()] for r in t.to_pylist()],
}))
`;

function tradesCsv(rows: number): string {
  const syms = ['BTC-USD', 'ETH-USD', 'é😀-ünï', '', 'SOL'];
  const out = ['ts,sym,price,amount,side'];
  for (let i = 0; i < rows; i++) {
    const us = Date.UTC(2024, 0, 1) * 1000 + i * 7_919_113; // about 3 days over 30k rows
    const ts = new Date(Math.floor(us / 1000)).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
    const sym = i % 13 === 0 ? '' : syms[i % syms.length]!;
    const quoted = sym === '' ? (i % 26 === 0 ? '' : '""') : sym;
    const amount = i % 101 === 0 ? '' : ((i * 37) % 1000) / 8;
    out.push(`${ts},${quoted},${40_000 + ((i * 7919) % 100_000) / 100},${amount},${i % 3 === 0 ? 'buy' : 'sell'}`);
  }
  return out.join('\n') + '\n';
}

const run = promisify(execFile);

describe('Parquet from /exp read back by pyarrow', () => {
  let s: ServerProcess;
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-pyarrow-'));
  let expected: unknown[][];
  before(async () => {
    s = await startServer();
    const form = new FormData();
    form.append('data', new Blob([tradesCsv(30_000)]), 'trades.csv');
    const r = await request(`${s.mainUrl}/imp?name=t&timestamp=ts&partitionBy=DAY&fmt=json`, {
      method: 'POST',
      body: form,
    });
    const rep = (await r.body.json()) as { rowsImported: number; columns: { type: string }[] };
    assert.equal(rep.rowsImported, 30_000);
    assert.deepEqual(
      rep.columns.map((c) => c.type),
      ['TIMESTAMP', 'VARCHAR', 'DOUBLE', 'DOUBLE', 'VARCHAR'],
    );
    const q = await request(`${s.mainUrl}/exec?query=${encodeURIComponent('t')}&count=true`);
    expected = ((await q.body.json()) as { dataset: unknown[][] }).dataset;
    assert.equal(expected.length, 30_000);
  });
  after(async () => {
    await s.stop();
  });

  for (const params of ['', '&compression_codec=snappy', '&compression_codec=uncompressed&parquet_version=1']) {
    test(`the default export${params}: pyarrow's types and values are /exec's`, async () => {
      const r = await request(`${s.mainUrl}/exp?query=${encodeURIComponent('t')}&fmt=parquet${params}`);
      assert.equal(r.statusCode, 200);
      const file = join(dir, `t${params.length}.parquet`);
      writeFileSync(file, Buffer.from(await r.body.arrayBuffer()));
      let out: string;
      try {
        // Not execFileSync: while the event loop is blocked, undici cannot notice the server
        // closing the idle keep-alive connection, and the next request may go out on it
        // ("other side closed", seen once in CI).
        out = (await run('python3', ['-c', READER, file], { encoding: 'utf8', maxBuffer: 64 << 20 })).stdout;
      } catch (e) {
        throw new Error(
          `reading with pyarrow (python3 -c "import pyarrow") failed: is pyarrow installed? ${String(e)}`,
          { cause: e },
        );
      }
      const got = JSON.parse(out) as { types: string[]; names: string[]; rows: unknown[][] };
      assert.deepEqual(got.names, ['ts', 'sym', 'price', 'amount', 'side']);
      assert.deepEqual(got.types, ['timestamp[us, tz=UTC]', 'string', 'double', 'double', 'string']);
      // pyarrow prints timestamps as 2024-01-01T00:00:00.123456+00:00; /exec as ...123456Z.
      const rows = got.rows.map((row) => [
        String(row[0]).replace(/(\.\d{6})?\+00:00$/, (_, f?: string) => `${f ?? '.000000'}Z`),
        ...row.slice(1),
      ]);
      assert.deepEqual(rows, expected);
    });
  }

  test("COPY t TO 'dir' (a file per day, under the export root): pyarrow reads the folder as /exec's rows", async () => {
    const q = async (sql: string): Promise<unknown[][]> => {
      const r = await request(`${s.mainUrl}/exec?query=${encodeURIComponent(sql)}`);
      const body = (await r.body.json()) as { dataset: unknown[][]; error?: string };
      assert.equal(r.statusCode, 200, body.error);
      return body.dataset;
    };
    const id = (await q("COPY t TO 'by_day' WITH FORMAT PARQUET"))[0]![0] as string;
    let status = 'started';
    for (let i = 0; i < 500 && status === 'started'; i++) {
      status = String((await q(`SELECT status FROM sys.copy_export_log WHERE id = '${id}' LIMIT -1`))[0]?.[0]);
      if (status === 'started') await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(status, 'finished');
    const days = await q("SELECT path FROM export_files() WHERE path LIKE 'by_day/%' ORDER BY path");
    assert.deepEqual(days, [
      ['by_day/2024-01-01.parquet'],
      ['by_day/2024-01-02.parquet'],
      ['by_day/2024-01-03.parquet'],
    ]);
    const out = (
      await run('python3', ['-c', READER, join(s.root, 'export', 'by_day')], { encoding: 'utf8', maxBuffer: 64 << 20 })
    ).stdout;
    const got = JSON.parse(out) as { types: string[]; rows: unknown[][] };
    assert.deepEqual(got.types, ['timestamp[us, tz=UTC]', 'string', 'double', 'double', 'string']);
    const rows = got.rows.map((row) => [
      String(row[0]).replace(/(\.\d{6})?\+00:00$/, (_, f?: string) => `${f ?? '.000000'}Z`),
      ...row.slice(1),
    ]);
    assert.deepEqual(rows, expected);
  });
});
