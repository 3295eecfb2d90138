// The shell's pure parts: statements cut from input at `;` outside strings,
// quoted names and comments (with the line each starts on), the /exec
// document scanner fed in chunks of every size down to one byte, the cells of
// the rows it cuts out (exact digits, NULL apart from 'null'), the table's
// layout, and what --host means.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatementSplitter } from '../../lib/cli/shell/statement-splitter.js';
import { ExecFormatError, ExecScanner } from '../../lib/cli/shell/exec-scanner.js';
import { rowCells } from '../../lib/cli/shell/row-cells.js';
import { TableLayout } from '../../lib/cli/shell/table-layout.js';
import { hostUrl } from '../../lib/cli/shell/sources.js';

test('a statement ends at a ; outside strings, quoted names and comments, over lines', () => {
  const s = new StatementSplitter();
  assert.deepEqual(s.push("select 'a;b' x,\n"), []);
  assert.equal(s.pending, true);
  assert.deepEqual(s.push('"c;d" -- not; the end\n'), []);
  assert.deepEqual(s.push("/* still ; not */ from t; select 'it''s;' ;; select 3\n"), [
    { text: 'select \'a;b\' x,\n"c;d" -- not; the end\n/* still ; not */ from t', line: 1 },
    { text: "select 'it''s;'", line: 3 },
  ]);
  assert.deepEqual(s.push('/* a comment\nover ; lines */;\n'), [
    { text: 'select 3\n/* a comment\nover ; lines */', line: 3 },
  ]);
  assert.equal(s.pending, false);
  // Comments alone are no statement; the last one may lack its ;
  assert.deepEqual(s.push('-- just a comment;\n\n  select 4'), []);
  assert.deepEqual(s.finish(), { text: '-- just a comment;\n\n  select 4'.trim(), line: 6 });
  assert.equal(s.finish(), null);
});

test('a statement is found whichever way its text is cut into pushes', () => {
  const text = 'select \'x;y\' a; -- c;\nselect /* ; */ 2;select "q;" from t\n;';
  const want = new StatementSplitter().push(text);
  assert.equal(want.length, 3);
  for (let size = 1; size <= 7; size++) {
    const s = new StatementSplitter();
    const got = [];
    for (let i = 0; i < text.length; i += size) got.push(...s.push(text.slice(i, i + size)));
    assert.deepEqual(
      got.map((g) => g.text),
      want.map((w) => w.text),
      `pushes of ${size}`,
    );
  }
});

const DOC =
  '{"query":"select \\"dataset\\":[","columns":[{"name":"a","type":"LONG"},{"name":"s","type":"STRING"},' +
  '{"name":"d","type":"DOUBLE"},{"name":"arr","type":"DOUBLE[]"}],"timestamp":-1,"dataset":[' +
  '[9007199254740993,"null",80.0,[[1.0,2.5],[]]],[null,"a\\"]\\\\[",-0.0,null],[-9223372036854775807,"é 🚀",1.0E-5,[]]' +
  '],"count":3,"timings":{"compiler":10,"execute":20,"count":0}}';

test('the /exec scanner cuts out rows and members, fed in chunks of every size down to one byte', () => {
  const bytes = Buffer.from(DOC);
  for (const size of [1, 2, 3, 5, 7, 64, bytes.length]) {
    const rows: Buffer[] = [];
    const s = new ExecScanner((r) => rows.push(Buffer.from(r)));
    let heads = 0;
    s.onHead = () => heads++;
    for (let i = 0; i < bytes.length; i += size) s.write(bytes.subarray(i, i + size));
    const sum = s.end();
    assert.equal(heads, 1);
    assert.deepEqual(
      sum.columns?.map((c) => `${c.name}:${c.type}`),
      ['a:LONG', 's:STRING', 'd:DOUBLE', 'arr:DOUBLE[]'],
    );
    assert.equal(sum.members.count, 3);
    assert.deepEqual(sum.members.timings, { compiler: 10, execute: 20, count: 0 });
    assert.equal(sum.members.query, 'select "dataset":[');
    assert.deepEqual(
      rows.map((r) => r.toString()),
      [
        '[9007199254740993,"null",80.0,[[1.0,2.5],[]]]',
        '[null,"a\\"]\\\\[",-0.0,null]',
        '[-9223372036854775807,"é 🚀",1.0E-5,[]]',
      ],
      `chunks of ${size}`,
    );
    assert.deepEqual(rowCells(rows), [
      ['9007199254740993', 'null', '80.0', '[[1.0,2.5],[]]'],
      [null, 'a"]\\[', '-0.0', null],
      ['-9223372036854775807', 'é 🚀', '1.0E-5', '[]'],
    ]);
  }
});

test('the scanner reads a statement answer, a late error, and refuses what is not /exec JSON', () => {
  const ddl = new ExecScanner(() => assert.fail('no rows'));
  ddl.write(Buffer.from('{"ddl":"OK","updated":3}'));
  assert.deepEqual(ddl.end(), { columns: null, members: { ddl: 'OK', updated: 3 } });
  const late = new ExecScanner(() => undefined);
  late.write(Buffer.from('{"query":"q","columns":[],"timestamp":-1,"dataset":[[1]],"error":"timeout","errorPos":0}'));
  assert.equal(late.end().members.error, 'timeout');
  const health = new ExecScanner(() => undefined);
  health.write(Buffer.from('Status: Healthy'));
  assert.throws(() => health.end(), ExecFormatError);
  const cut = new ExecScanner(() => undefined);
  cut.write(Buffer.from('{"columns":[],"dataset":[[1],[2'));
  assert.throws(() => cut.end(), /ended in the middle of its rows/);
});

test('the table shows NULL apart from the text, numbers right, and cuts to the width', () => {
  const cols = [
    { name: 'n', type: 'LONG' },
    { name: 'text', type: 'STRING' },
    { name: 'wide_column', type: 'STRING' },
  ];
  const rows = [
    ['1', 'null', 'x'.repeat(30)],
    [null, null, 'tab\there'],
  ];
  const all = new TableLayout(cols, { width: null, nullText: 'NULL', color: false });
  rows.forEach((r) => all.measure(r));
  all.plan();
  assert.equal(
    all.head() + rows.map((r) => all.line(r)).join('') + all.footer(2, 2),
    `   n | text | wide_column\n-----+------+-------------------------------\n   1 | null | ${'x'.repeat(30)}\nNULL | NULL | tab\\there\n(2 rows)\n`,
  );
  const narrow = new TableLayout(cols, { width: 20, nullText: 'NULL', color: true });
  rows.forEach((r) => narrow.measure(r));
  narrow.plan();
  assert.equal(narrow.head(), '   n | text | …\n-----+------+--\n');
  assert.equal(narrow.line(rows[1]!), '\u001b[2mNULL\u001b[0m | \u001b[2mNULL\u001b[0m | …\n');
  assert.equal(narrow.footer(100, 2), '100 rows (2 shown)\n3 columns (2 shown); hidden: wide_column\n');
  // One column wider than the terminal: its values are cut with …
  const one = new TableLayout([{ name: 's', type: 'STRING' }], { width: 10, nullText: 'NULL', color: false });
  one.measure(['abcdefghijklmnop']);
  one.plan();
  assert.equal(one.line(['abcdefghijklmnop']), 'abcdefghi…\n');
});

test('--host: a host alone means port 9000; host:port and URLs as given', () => {
  assert.equal(hostUrl('localhost'), 'http://localhost:9000');
  assert.equal(hostUrl('127.0.0.1:9100'), 'http://127.0.0.1:9100');
  assert.equal(hostUrl('http://db.example'), 'http://db.example:9000');
  assert.equal(hostUrl('https://db.example:443/'), 'https://db.example');
  assert.equal(hostUrl('http://db.example:80'), 'http://db.example');
  assert.throws(() => hostUrl('ftp://x'), /only http/);
});
