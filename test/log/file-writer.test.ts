import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileWriter, RollingFileWriter, nextRollMicros } from '../../lib/log/file-writer.js';
import { formatLine } from '../../lib/log/line-format.js';
import { Level } from '../../lib/log/levels.js';
import type { WriterContext } from '../../lib/log/log-writer.js';
import { Metrics } from '../../lib/metrics/metrics.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'svcdb-fw-'));
  made.push(d);
  return d;
}

const US = (iso: string): number => Date.parse(iso) * 1000;

function ctx(root: string, props: Record<string, string>, now: () => number): WriterContext {
  return {
    name: 'file',
    mask: Level.INFO | Level.ERROR,
    props: new Map(Object.entries(props)),
    root,
    logDir: join(root, 'log'),
    env: {},
    version: 't',
    metrics: new Metrics(),
    now,
    report: () => undefined,
  };
}

function rec(
  micros: number,
  message: string,
): { micros: number; level: number; logger: string; message: string; line: string } {
  return { micros, level: Level.INFO, logger: 't', message, line: formatLine(micros, Level.INFO, 't', message) };
}

test('computes the start of the next minute, hour, day, month and year in UTC', () => {
  const t = US('2024-12-31T23:59:30.500Z');
  assert.equal(nextRollMicros('minute', t), US('2025-01-01T00:00:00Z'));
  assert.equal(nextRollMicros('hour', US('2024-02-29T10:15:00Z')), US('2024-02-29T11:00:00Z'));
  assert.equal(nextRollMicros('day', US('2024-02-29T10:15:00Z')), US('2024-03-01T00:00:00Z'));
  assert.equal(nextRollMicros('month', US('2024-01-31T10:15:00Z')), US('2024-02-01T00:00:00Z'));
  assert.equal(nextRollMicros('year', t), US('2025-01-01T00:00:00Z'));
});

test('a plain file writer appends to one file that grows', async () => {
  const root = tmp();
  for (let i = 0; i < 2; i++) {
    const w = new FileWriter(ctx(root, { location: 'plain.log' }, () => US('2024-01-01T00:00:00Z')));
    w.write(rec(US('2024-01-01T00:00:00Z'), `run ${i}`));
    await w.close();
  }
  assert.match(readFileSync(join(root, 'plain.log'), 'utf8'), /run 0\n.*run 1\n$/);
});

test('rolls to a new file when the period changes, named by the time of the roll', async () => {
  const root = tmp();
  let now = US('2024-01-01T23:59:58Z');
  const w = new RollingFileWriter(
    ctx(root, { location: '${log.dir}/svc-${date:yyyy-MM-dd}.log', rollEvery: 'day' }, () => now),
  );
  w.write(rec(now, 'day one'));
  now = US('2024-01-02T00:00:01Z');
  w.write(rec(now, 'day two a'));
  w.write(rec(now, 'day two b'));
  await w.close();
  assert.deepEqual(readdirSync(join(root, 'log')).sort(), ['svc-2024-01-01.log', 'svc-2024-01-02.log']);
  assert.match(readFileSync(join(root, 'log', 'svc-2024-01-01.log'), 'utf8'), /^\S+ I t day one\n$/);
  assert.match(readFileSync(join(root, 'log', 'svc-2024-01-02.log'), 'utf8'), /day two a\n.*day two b\n$/);
});

test('rolls by size without losing or splitting a line', async () => {
  const root = tmp();
  const now = US('2024-01-01T00:00:00Z');
  const w = new RollingFileWriter(ctx(root, { location: 'r.log', rollSize: '1k' }, () => now));
  const written: string[] = [];
  for (let i = 0; i < 200; i++) {
    const msg = `message ${i} ` + 'x'.repeat(i % 50);
    written.push(msg);
    w.write(rec(now, msg));
  }
  await w.close();
  const files = readdirSync(root).filter((f) => f.startsWith('r.log'));
  assert.ok(files.length > 5, `only ${files.length} files`);
  const order = (f: string): number => (f === 'r.log' ? 0 : Number(f.slice('r.log.'.length)));
  files.sort((a, b) => order(a) - order(b));
  const lines: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8');
    assert.ok(Buffer.byteLength(text) <= 1024, `${f} is ${Buffer.byteLength(text)} bytes`);
    assert.ok(text.endsWith('\n'));
    lines.push(...text.trim().split('\n'));
  }
  assert.deepEqual(
    lines.map((l) => l.split(' ').slice(3).join(' ')),
    written,
  );
});
