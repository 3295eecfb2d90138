// The shell's printer over /exec documents that arrive in chunks of any size
// to a slow consumer: the aligned table with the digits as sent, NULL apart
// from the text 'null' and control characters escaped; every row through a
// spool that spills to a file and is removed, also when the answer breaks
// off; a statement's answer and a late error print nothing and are handed back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { printDocument, type PrintOptions } from '../../lib/cli/shell/result-printer.js';

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

const ALL: PrintOptions = { maxRows: 0, width: null, nullText: 'NULL', color: false };

const BODY =
  '{"query":"q","columns":[{"name":"s","type":"SYMBOL"},{"name":"n","type":"LONG"},{"name":"d","type":"DOUBLE"}],"timestamp":-1,' +
  '"dataset":[["a",9007199254740993,1.5],[null,-1,1.0E-5],["tab\\there",null,-20.25],["😀x",7,null],["null",0,80.0]],"count":5}';

// `tab\there` shows 9 characters; 😀 is one code point wide.
const TABLE = [
  's         |                n |      d',
  '----------+------------------+-------',
  'a         | 9007199254740993 |    1.5',
  'NULL      |               -1 | 1.0E-5',
  'tab\\there |             NULL | -20.25',
  '😀x        |                7 |   NULL',
  'null      |                0 |   80.0',
  '(5 rows)',
  '',
].join('\n');

test('prints aligned rows with the digits as sent, NULL apart from null, control characters escaped', async () => {
  for (const size of [1, 7, 4096]) {
    for (const maxRows of [0, 40]) {
      const { out, text } = slowSink();
      const r = await printDocument(chunks(BODY, size), 'table', out, { ...ALL, maxRows });
      assert.equal(r.members.count, 5);
      assert.equal(text(), TABLE, `chunks of ${size}, at most ${maxRows} rows`);
    }
  }
});

test('a long result shows its first and last rows; an even cut and an odd one', async () => {
  const rows = Array.from({ length: 1000 }, (_, i) => `[${i}]`).join(',');
  const body = `{"columns":[{"name":"i","type":"INT"}],"dataset":[${rows}],"count":1000}`;
  const { out, text } = slowSink();
  await printDocument(chunks(body, 333), 'table', out, { ...ALL, maxRows: 5 });
  assert.equal(text(), '  i\n---\n  0\n  1\n  2\n  …\n998\n999\n1000 rows (5 shown)\n');
});

test('spills a large answer to a temporary file and removes it, also when the answer breaks off', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-spool-test-'));
  try {
    const rows = Array.from({ length: 5000 }, (_, i) => `[${i},"r${i}"]`).join(',');
    const body = `{"columns":[{"name":"i","type":"INT"},{"name":"s","type":"STRING"}],"dataset":[${rows}]}`;
    const { out, text } = slowSink();
    const spool = { memoryLimit: 4096, dir };
    await printDocument(chunks(body, 1000), 'table', out, { ...ALL, spool });
    const lines = text().split('\n');
    assert.equal(lines[0], '   i | s');
    assert.equal(lines[5001], '4999 | r4999');
    assert.equal(lines[5002], '(5000 rows)');
    assert.deepEqual(readdirSync(dir), [], 'the spool file is gone');
    await assert.rejects(
      printDocument(chunks(body, 1000, 20), 'table', slowSink().out, { ...ALL, spool }),
      /connection lost/,
    );
    assert.deepEqual(readdirSync(dir), [], 'gone after an early end too');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('prints nothing for a statement or an answer that ends with an error, and hands back its members', async () => {
  for (const maxRows of [0, 40]) {
    const { out, text } = slowSink();
    const ddl = await printDocument(chunks('{"ddl":"OK","updated":12}', 3), 'table', out, { ...ALL, maxRows });
    assert.equal(ddl.columns, null);
    assert.equal(ddl.members.updated, 12);
    const late = await printDocument(
      chunks(
        '{"query":"q","columns":[{"name":"x","type":"LONG"}],"dataset":[[1],[2]],"error":"timeout, query aborted","errorPos":0}',
        5,
      ),
      'table',
      out,
      { ...ALL, maxRows },
    );
    assert.equal(late.members.error, 'timeout, query aborted');
    assert.equal(text(), '');
    await assert.rejects(
      printDocument(chunks('{"dataset":[[1],', 4), 'table', out, { ...ALL, maxRows }),
      /ended in the middle/,
    );
  }
});

test('line mode: one `column = value` a line, names aligned, a blank line between rows', async () => {
  const { out, text } = slowSink();
  await printDocument(chunks(BODY, 5), 'line', out, ALL);
  assert.ok(
    text().startsWith('s = a\nn = 9007199254740993\nd = 1.5\n\ns = NULL\nn = -1\nd = 1.0E-5\n\ns = tab\\there\n'),
    text(),
  );
});
