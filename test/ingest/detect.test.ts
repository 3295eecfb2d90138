// Detection by QuestDB's rules, without a server: the delimiter scan, the
// probes and their order, and the header rule (all text counting every line,
// not all text with one line fewer), with QuestDB's answers for each input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectColumns, detectDelimiter, probeMask, sampleLines } from '../../lib/ingest/detect.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
function detect(csv: string, forceHeader = false, delimiter?: string): { header: boolean; types: string[] } {
  const scan =
    delimiter === undefined ? detectDelimiter(bytes(csv), 1000, true) : { delimiter: delimiter.charCodeAt(0) };
  assert.ok('delimiter' in scan, `no delimiter for ${JSON.stringify(csv)}`);
  const d = detectColumns(sampleLines(bytes(csv), scan.delimiter, 1000, true), forceHeader);
  return { header: d.header, types: d.columns.map((c) => (c.pattern ? `${c.type}(${c.pattern})` : c.type)) };
}

test('delimiter: the byte whose count per line varies least, by priority on a tie; steady lines without one are one column', () => {
  const d = (csv: string): string => {
    const r = detectDelimiter(bytes(csv), 1000, true);
    return 'delimiter' in r ? String.fromCharCode(r.delimiter) : r.error;
  };
  assert.equal(d('a,b\n1,2\n3,4\n'), ',');
  assert.equal(d('a\tb\n1\t2\n'), '\t');
  assert.equal(d('a|b\n1,5|2\n'), '|');
  assert.equal(d('a;b\n1;2\n'), ';');
  assert.equal(d('a b\n1 2\n'), ' ');
  assert.equal(d('ts,v\n2024-01-01T00:00:00.000000Z,1\n2024-01-02T00:00:00.000000Z,2\n'), ',');
  assert.equal(d('id,"a,b"\n1,"c,d,e"\n'), ',', 'commas inside quotes do not count');
  assert.equal(d('v\n1\n2\n3\n'), ',', 'one column of steady length');
  assert.equal(d('hello\n'), 'lines');
  assert.equal(d('a,b\n\n'), 'lines', 'empty lines are skipped');
  assert.equal(d('a,b\n1,xx\n2,yy,extra\n3,zz\n'), 'deviation');
  assert.equal(d('a.b\n1.2\n'), ',', 'a dot is never the delimiter');
});

test('probes in QuestDB order: one letter is CHAR, then INT, LONG, DOUBLE, BOOLEAN, UUID, IPv4, dates, timestamps', () => {
  assert.deepEqual(detect('a,b,c\nx,1,1.5\ny,2,2\n').types, ['CHAR', 'INT', 'DOUBLE']);
  assert.deepEqual(detect('a,b\n3000000000,true\n1,FALSE\n').types, ['LONG', 'BOOLEAN']);
  assert.deepEqual(
    detect('u,ip\n11111111-2222-3333-4444-555555555555,10.0.0.1\naaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee,192.168.1.1\n')
      .types,
    ['UUID', 'IPV4'],
  );
  assert.deepEqual(
    detect(
      'd,e,f,g\n2024-01-01,01/02/2024,2024-01-01 00:00:00,12/31/2024\n2024-12-31,31/12/2024,2024-01-01 01:02:03,01/15/2024\n',
    ).types,
    ['DATE', 'DATE(dd/MM/yyyy)', 'DATE', 'DATE(MM/dd/yyyy)'],
  );
  assert.deepEqual(
    detect(
      'a,b,c\n2024-01-01T00:00:00.000Z,2024-01-01T00:00:00.000000Z,2024-01-01T00:00:00.5\n2024-01-02T00:00:00.000Z,2024-01-01T01:02:03.456789Z,2024-01-01T00:00:01.25\n',
    ).types,
    ['DATE', 'TIMESTAMP', 'TIMESTAMP'],
    'three fraction digits with a zone are DATE (millis), as QuestDB detects them',
  );
  // Forms QuestDB leaves as text, read as timestamps here (QUESTDB-NOTES.md).
  assert.deepEqual(
    detect('a,b\n2024-01-01T00:00:00Z,2024-01-01 00:00:00.123456\n2024-01-01T01:00:00Z,2024-01-01 00:00:01.5\n').types,
    ['TIMESTAMP', 'TIMESTAMP'],
  );
  assert.deepEqual(detect('a,b\nabc,2024/01/03\nd,2024/12/31\n').types, ['VARCHAR', 'VARCHAR']);
  assert.deepEqual(detect('a,b\n1,x\n2,yy\n').types, ['INT', 'VARCHAR']);
  assert.equal(probeMask('é') & 1, 1, 'a non-ASCII letter is a CHAR');
  assert.equal(probeMask('7') & 1, 0, 'a digit is not');
  assert.equal(probeMask('-2147483648') & 2, 0, "INT's NULL is not an INT");
});

test('header: every column text counting all lines, and some column not text with one line fewer', () => {
  assert.deepEqual(detect('qty,price\n10,1.5\n20,2.5\n'), { header: true, types: ['INT', 'DOUBLE'] });
  assert.deepEqual(detect('v\n1\n2\n3\n'), { header: true, types: ['INT'] });
  // All text: no header.
  assert.deepEqual(detect('apple,red\nbanana,yellow\ncherry,red\n'), { header: false, types: ['VARCHAR', 'VARCHAR'] });
  assert.deepEqual(detect('ccy,desc\nEUR,Euro\nUSD,Dollar\n'), { header: false, types: ['VARCHAR', 'VARCHAR'] });
  // A column that is not text counting every line (a blank header value counts as blank): no header.
  assert.deepEqual(detect('a,a,,b\n1,2,3,4\n5,6,7,8\n'), {
    header: false,
    types: ['VARCHAR', 'VARCHAR', 'INT', 'VARCHAR'],
  });
  assert.equal(detect('1,2\n3,4\n').header, false);
  // One-letter names over one line: one line fewer gives CHAR, which is text: no header; the values all fit CHAR.
  assert.deepEqual(detect('a,b\n1,2\n'), { header: false, types: ['CHAR', 'CHAR'] });
  // ...but a longer value is never cut to fit one (QuestDB's CHAR detection of 1.5): it stays text.
  assert.deepEqual(detect('a,b\nx,1.5\n'), { header: false, types: ['CHAR', 'VARCHAR'] });
  assert.deepEqual(detect('a,b\n1,x\nzz,y\n3,z\n'), { header: false, types: ['VARCHAR', 'CHAR'] });
  // With a header, a name column over one-letter values is CHAR, and over longer ones text.
  assert.deepEqual(detect('id;name;v\n1;x;1.5\n2;y;2.5\n'), { header: true, types: ['INT', 'CHAR', 'DOUBLE'] });
  // A one-letter name over blanks and a longer value: CHAR with one line fewer, but the longer value keeps it text.
  assert.deepEqual(detect('id,v\n1,\n2,"x, y"\n3,\n'), { header: true, types: ['INT', 'VARCHAR'] });
  // Short lines: the values they lack are blanks.
  assert.deepEqual(detect('a,b,c\n1,xx,1.5\n2,yy\n3\n4,ww,4.5\n', false, ','), {
    header: true,
    types: ['INT', 'VARCHAR', 'DOUBLE'],
  });
});

test('forceHeader: the first line is the header whatever the counts say', () => {
  assert.deepEqual(detect('1,2\n3,4\n5,6\n', true), { header: true, types: ['INT', 'INT'] });
  assert.deepEqual(detect('apple,red\nbanana,yellow\n', true), { header: true, types: ['VARCHAR', 'VARCHAR'] });
  assert.deepEqual(detect('h,g\nx,1\ny,2\n', true), { header: true, types: ['CHAR', 'INT'] });
});
