import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { printTable } from '../../lib/export/text-table.js';

/** The body in chunks of `size` bytes, optionally failing after `failAfter` chunks. */
async function* chunks(text: string, size: number, failAfter = Infinity): AsyncGenerator<Uint8Array> {
  const b = Buffer.from(text);
  for (let i = 0, n = 0; i < b.length; i += size, n++) {
    if (n === failAfter) throw new Error('connection lost');
    yield b.subarray(i, i + size);
  }
}

/** A consumer that takes one chunk per macrotask (backpressure at every write). */
function slowSink(): { out: Writable; text: () => string } {
  const parts: string[] = [];
  const out = new Writable({
    highWaterMark: 1,
    write(c: Buffer, _e, cb) {
      parts.push(c.toString());
      setImmediate(cb);
    },
  });
  return { out, text: () => parts.join('') };
}

const BODY =
  '{"query":"q","columns":[{"name":"s","type":"SYMBOL"},{"name":"n","type":"LONG"},{"name":"d","type":"DOUBLE"}],"timestamp":-1,' +
  '"dataset":[["a",9007199254740993,1.5],[null,-1,1.0E-5],["tab\\there",null,-20.25],["😀x",7,null]],"count":4}';

// `tab\there` shows 9 characters; 😀 is one code point wide.
const TABLE = [
  's         |                n |      d',
  '----------+------------------+-------',
  'a         | 9007199254740993 |    1.5',
  'null      |               -1 | 1.0E-5',
  'tab\\there |             null | -20.25',
  '😀x        |                7 |   null',
  '(4 rows)',
  '',
].join('\n');

test('prints aligned rows with the digits as sent, NULL as null and control characters escaped', async () => {
  for (const size of [1, 7, 4096]) {
    const { out, text } = slowSink();
    const r = await printTable(chunks(BODY, size), out);
    assert.equal(r.rows, 4);
    assert.equal(text(), TABLE, `chunks of ${size}`);
  }
});

test('spills a large answer to a temporary file and removes it, also when the answer breaks off', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-spool-test-'));
  try {
    const rows = Array.from({ length: 5000 }, (_, i) => `[${i},"r${i}"]`).join(',');
    const body = `{"columns":[{"name":"i","type":"INT"},{"name":"s","type":"STRING"}],"dataset":[${rows}]}`;
    const { out, text } = slowSink();
    const r = await printTable(chunks(body, 1000), out, { memoryLimit: 4096, dir });
    assert.equal(r.rows, 5000);
    const lines = text().split('\n');
    assert.equal(lines[0], '   i | s');
    assert.equal(lines[5001], '4999 | r4999');
    assert.equal(lines[5002], '(5000 rows)');
    assert.deepEqual(readdirSync(dir), [], 'the spool file is gone');
    await assert.rejects(
      printTable(chunks(body, 1000, 20), slowSink().out, { memoryLimit: 4096, dir }),
      /connection lost/,
    );
    assert.deepEqual(readdirSync(dir), [], 'gone after an early end too');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('prints nothing for a statement or an answer that ends with an error, and hands back its members', async () => {
  const { out, text } = slowSink();
  const ddl = await printTable(chunks('{"ddl":"OK","updated":12345678901234567}', 3), out);
  assert.equal(ddl.rows, null);
  assert.equal(ddl.members.get('updated'), '12345678901234567');
  const late = await printTable(
    chunks(
      '{"query":"q","columns":[{"name":"x","type":"LONG"}],"dataset":[[1],[2]],"error":"timeout, query aborted","errorPos":0}',
      5,
    ),
    out,
  );
  assert.equal(late.rows, null);
  assert.equal(late.members.get('error'), 'timeout, query aborted');
  assert.equal(text(), '');
  await assert.rejects(printTable(chunks('{"dataset":[[1],', 4), out), /ends early/);
});
