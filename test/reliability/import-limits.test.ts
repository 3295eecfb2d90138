// Imports are bounded and all-or-nothing (issue 15, items 1, 5 and 11): wide
// files, long lines, out-of-order rows, giant schema parts and gzip bombs meet
// a clear 400 naming their limit in bounded memory; a request that is refused
// or cut short leaves nothing visible (a new table, an append, an overwrite);
// a schema part after the data is not applied and the answer says so.
// Multipart bodies are built as curl -F sends them; the cut body goes through
// a raw socket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { ServerProcess } from '../helpers/server-process.js';
import { assertAlive, exec, rss, startCappedServer, unhandledErrors, type Answer } from '../helpers/reliability.js';

const BOUNDARY = '------------------------a1b2c3d4e5f60718';
const MIB = 1024 * 1024;

interface Part {
  readonly name: string;
  readonly body: Uint8Array | string;
  readonly filename?: string;
}

/** The multipart body curl -F builds: a file part per `filename`, a plain field otherwise. */
function multipart(parts: readonly Part[], end = `--${BOUNDARY}--\r\n`): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition =
      p.filename === undefined
        ? `form-data; name="${p.name}"`
        : `form-data; name="${p.name}"; filename="${p.filename}"`;
    const type = p.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n';
    chunks.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`),
      Buffer.from(p.body),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(end));
  return Buffer.concat(chunks);
}

/**
 * POST /imp as curl sends it: the body in 64 KiB writes, stopped once the answer
 * arrives (a refused upload is answered before its end; the server then reads
 * and drops the rest of it, within a bound, and closes the connection).
 */
function upload(s: ServerProcess, body: Buffer, params: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${s.mainUrl}/imp?${new URLSearchParams(params)}`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    }); // a write after the answer may find the connection closed
    let at = 0;
    const pump = (): void => {
      while (at < body.length && !answered) {
        const piece = body.subarray(at, at + 65_536);
        at += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const data = (csv: Uint8Array | string, filename = 'data.csv'): Part => ({ name: 'data', body: csv, filename });

/**
 * POST /imp over a raw socket: `steps` are bytes to send or checks to run in
 * between (so a test can look at the table while the body is incomplete).
 * Content-Length says `declared` bytes (default: all that is sent); when more
 * are declared than sent, the client then closes its side (a cut body).
 */
async function rawUpload(
  s: ServerProcess,
  params: Record<string, string>,
  steps: ReadonlyArray<Buffer | (() => Promise<void>)>,
  declared?: number,
): Promise<{ status: number; text: string }> {
  const sent = steps.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : 0), 0);
  const url = new URL(s.mainUrl);
  const sock = connect(Number(url.port), url.hostname);
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    let got = Buffer.alloc(0);
    const settle = (): void => {
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (got.length < end + 4 + length) return;
      resolve({ status: Number(head.split(' ')[1]), text: got.subarray(end + 4, end + 4 + length).toString('utf8') });
      sock.destroy();
    };
    sock.on('data', (c: Buffer) => {
      got = Buffer.concat([got, c]);
      settle();
    });
    sock.on('error', reject);
    sock.on('close', () =>
      reject(new Error(`connection closed without a whole answer: ${got.toString('latin1').slice(0, 300)}`)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  const write = (b: Buffer | string): Promise<void> =>
    new Promise((resolve, reject) => sock.write(b, (e) => (e ? reject(e) : resolve())));
  await write(
    `POST /imp?${new URLSearchParams(params)} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declared ?? sent}\r\n\r\n`,
  );
  for (const step of steps) {
    if (Buffer.isBuffer(step)) await write(step);
    else await step();
  }
  if (declared !== undefined && declared > sent) sock.end();
  return answer;
}

async function dataset(s: ServerProcess, sql: string): Promise<unknown[][]> {
  const r = await exec(s, sql);
  assert.equal(r.status, 200, `${sql}: ${r.text}`);
  return (r.json as { dataset: unknown[][] }).dataset;
}

async function tableExists(s: ServerProcess, name: string): Promise<boolean> {
  return (await dataset(s, `select count() from tables() where table_name = '${name}'`))[0]![0] === 1;
}

/** The server is alive and nothing was counted as an unhandled error. */
async function healthy(s: ServerProcess, context: string): Promise<void> {
  await assertAlive(s, context);
  assert.equal(await unhandledErrors(s), 0, `unhandled errors after ${context}`);
}

/** The start of an answer, for assertion messages. */
function brief(r: Answer): string {
  return `${r.status} ${r.text.slice(0, 300)}`;
}

/** The status message of a refused import (JSON or text). */
function message(r: Answer): string {
  return typeof r.json === 'object' && r.json !== null ? String((r.json as { status?: unknown }).status) : r.text;
}

describe('a very wide CSV', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer();
  });
  after(async () => {
    await s.stop();
  });

  test(
    'a CSV of 100,000 columns answers 400 naming import.max.columns, in bounded memory given back, creating nothing',
    { timeout: 60_000 },
    async () => {
      const n = 100_000;
      const cols = Array.from({ length: n }, (_, k) => k);
      const csv = `${cols.map((k) => `c${k}`).join(',')}\n${cols.join(',')}\n${cols.map((k) => k + 1).join(',')}\n`;
      const before = rss(s);
      const r = await upload(s, multipart([data(csv, 'wide.csv')]), { name: 'w', delimiter: ',', fmt: 'json' });
      assert.equal(r.status, 400, brief(r));
      assert.match(message(r), /the file has 100000 columns, more than the limit of 2048 \[limit=import\.max\.columns/);
      const after = rss(s);
      // The unbounded import held ~270 KiB per column (26 GB here); the bounded one a few lines of the file.
      assert.ok(
        after.peak - before.now < 256 * MIB,
        `RSS peaked ${((after.peak - before.now) / MIB).toFixed(0)} MiB above its start`,
      );
      assert.ok(
        after.now - before.now < 128 * MIB,
        `RSS stayed ${((after.now - before.now) / MIB).toFixed(0)} MiB above its start`,
      );
      assert.equal(await tableExists(s, 'w'), false);
      await healthy(s, 'the 100,000-column import');
    },
  );
});

describe('import limits', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer();
  });
  after(async () => {
    await s.stop();
  });

  test('a wide file under the column limit imports every value', { timeout: 60_000 }, async () => {
    const n = 2000;
    const cols = Array.from({ length: n }, (_, k) => k);
    const rows = [0, 1, 2].map((r) => cols.map((k) => k * 10 + r).join(','));
    const csv = `${cols.map((k) => `c${k}`).join(',')}\n${rows.join('\n')}\n`;
    const r = await upload(s, multipart([data(csv, 'wide2000.csv')]), { fmt: 'json' });
    assert.equal(r.status, 200, brief(r));
    assert.equal((r.json as { rowsImported: number }).rowsImported, 3);
    assert.equal((r.json as { columns: unknown[] }).columns.length, n);
    assert.deepEqual(await dataset(s, 'select c0, c1, c1000, c1999 from wide2000'), [
      [0, 10, 10000, 19990],
      [1, 11, 10001, 19991],
      [2, 12, 10002, 19992],
    ]);
    await healthy(s, 'the 2,000-column import');
  });

  test('a first field of 2 MiB imports (detection waits for two lines past 1 MiB)', { timeout: 60_000 }, async () => {
    const big = 'x'.repeat(2 * MIB);
    const r = await upload(s, multipart([data(`${big},1\ny,2\nz,3\n`, 'longfirst.csv')]), { fmt: 'json' });
    assert.equal(r.status, 200, brief(r));
    assert.equal((r.json as { rowsImported: number }).rowsImported, 3);
    assert.deepEqual(await dataset(s, 'select length(f0), f1 from longfirst'), [
      [2 * MIB, 1],
      [1, 2],
      [1, 3],
    ]);
    await healthy(s, 'the 2 MiB first field');
  });

  test(
    'a line longer than http.text.roll.buffer.limit answers 400 naming it, at detection and later in the file',
    { timeout: 60_000 },
    async () => {
      const first = await upload(s, multipart([data(`${'x'.repeat(5 * MIB)},1\ny,2\n`, 'longline.csv')]), {
        fmt: 'json',
      });
      assert.equal(first.status, 400, brief(first));
      assert.match(
        message(first),
        /line 1 is longer than the limit of 4194304 bytes \[limit=http\.text\.roll\.buffer\.limit, line=1\]/,
      );
      // A quoted value never closed, after detection: the parser holds at most the limit of it.
      const open = await upload(s, multipart([data(`a,b\n1,x\n2,"${'y'.repeat(5 * MIB)}`, 'unclosed.csv')]), {
        fmt: 'json',
      });
      assert.equal(open.status, 400, brief(open));
      assert.match(
        message(open),
        /a value on line 3 is longer than the limit of 4194304 bytes \[limit=http\.text\.roll\.buffer\.limit/,
      );
      assert.equal(await tableExists(s, 'longline'), false);
      assert.equal(await tableExists(s, 'unclosed'), false);
      await healthy(s, 'the long lines');
    },
  );

  test(
    'a gzip bomb expanding to one 64 MiB value is refused at the line limit, never held whole',
    { timeout: 60_000 },
    async () => {
      const bomb = gzipSync(Buffer.concat([Buffer.from('a,b\n1,2\n3,'), Buffer.alloc(64 * MIB, 0x7a)]), { level: 9 });
      assert.ok(bomb.length < 128 * 1024);
      const before = rss(s);
      const r = await upload(s, multipart([data(bomb, 'bomb.csv.gz')]), { fmt: 'json' });
      assert.equal(r.status, 400, brief(r));
      assert.match(message(r), /limit=http\.text\.roll\.buffer\.limit/);
      assert.ok(rss(s).peak - before.now < 128 * MIB, 'the expanded value was held');
      assert.equal(await tableExists(s, 'bomb'), false);
      await healthy(s, 'the gzip bomb');
    },
  );

  test(
    'a schema part over 1 MiB is refused without being held; extra file parts are skipped',
    { timeout: 60_000 },
    async () => {
      const entries = Array.from({ length: 60_000 }, () => '{"name":"a","type":"INT"}').join(',');
      const giant = await upload(
        s,
        multipart([{ name: 'schema', body: `[${entries}]`, filename: 'schema.json' }, data('a,b\n1,2\n', 'giant.csv')]),
        { fmt: 'json' },
      );
      assert.equal(giant.status, 400, brief(giant));
      assert.match(message(giant), /the schema part is larger than 1048576 bytes/);
      assert.equal(await tableExists(s, 'giant'), false);
      const extra = Array.from({ length: 50 }, (_, i) => ({
        name: `f${i}`,
        body: 'q'.repeat(64 * 1024),
        filename: `f${i}.bin`,
      }));
      const many = await upload(s, multipart([data('a,b\n1,2\n3,4\n', 'many.csv'), ...extra]), { fmt: 'json' });
      assert.equal(many.status, 200, brief(many));
      assert.deepEqual(await dataset(s, 'select * from many'), [
        [1, 2],
        [3, 4],
      ]);
      await healthy(s, 'the giant schema and the many parts');
    },
  );
});

describe('import memory budget', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer({ env: { SVC_IMPORT_MEMORY_LIMIT: '8m' } });
  });
  after(async () => {
    await s.stop();
  });

  /** `rows` rows of ts and three doubles, every timestamp before 2030. */
  function lateRows(rows: number): string {
    const lines = ['ts,a,b,c'];
    const t0 = Date.UTC(2024, 0, 1);
    for (let i = 0; i < rows; i++)
      lines.push(`${new Date(t0 + (rows - i) * 1000).toISOString().replace('Z', '000Z')},${i},${i / 2},${i / 4}`);
    return `${lines.join('\n')}\n`;
  }

  test('a file whose writer buffers need more than import.memory.limit answers 400 naming it; nothing is created', async () => {
    const n = 200;
    const csv = `${Array.from({ length: n }, (_, k) => `s${k}`).join(',')}\n${Array.from({ length: n }, () => 'text').join(',')}\n${Array.from({ length: n }, () => 'more').join(',')}\n`;
    const r = await upload(s, multipart([data(csv, 'widetext.csv')]), { fmt: 'json' });
    assert.equal(r.status, 400, brief(r));
    assert.match(
      message(r),
      /the table writer's buffers .* needs more than the memory limit of 8388608 bytes \[limit=import\.memory\.limit/,
    );
    assert.equal(await tableExists(s, 'widetext'), false);
    await healthy(s, 'the writer buffers over the budget');
  });

  test(
    'an append holding more out-of-order rows than import.memory.limit fails and adds nothing',
    { timeout: 60_000 },
    async () => {
      assert.equal(
        (
          await exec(
            s,
            'create table late_app (ts timestamp, a double, b double, c double) timestamp(ts) partition by day',
          )
        ).status,
        200,
      );
      assert.equal((await exec(s, "insert into late_app values ('2030-01-01T00:00:00Z', 1, 2, 3)")).status, 200);
      const r = await upload(s, multipart([data(lateRows(300_000), 'late_app.csv')]), { fmt: 'json' });
      assert.equal(r.status, 400, brief(r));
      assert.match(
        message(r),
        /rows older than the table's newest.* needs more than the memory limit of 8388608 bytes \[limit=import\.memory\.limit/,
      );
      assert.deepEqual(await dataset(s, 'select count() from late_app'), [[1]]);
      await healthy(s, 'the out-of-order append over the budget');
    },
  );

  test(
    'a new table with as many out-of-order rows imports within the same budget (merged early, out of sight)',
    { timeout: 60_000 },
    async () => {
      const r = await upload(s, multipart([data(lateRows(300_000), 'late_new.csv')]), {
        fmt: 'json',
        timestamp: 'ts',
        partitionBy: 'DAY',
      });
      assert.equal(r.status, 200, brief(r));
      assert.deepEqual(await dataset(s, 'select count(), sum(a), min(ts) from late_new'), [
        [300_000, (299_999 * 300_000) / 2, '2024-01-01T00:00:01.000000Z'],
      ]);
      await healthy(s, 'the out-of-order new table');
    },
  );
});

describe('imports are all-or-nothing', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer();
  });
  after(async () => {
    await s.stop();
  });

  const csv = 'a,b\n1,x\n2,y\n3,z\n';
  /** The three ways an import meets a table: a new one, an append to an existing one, an overwrite of one. */
  const targets = [
    { what: 'a new table', params: {}, setup: null, visible: async (t: string) => tableExists(s, t) },
    {
      what: 'an append',
      params: {},
      setup: 'append',
      visible: async (t: string) => (await dataset(s, `select count() from ${t}`))[0]![0] !== 1,
    },
    {
      what: 'an overwrite',
      params: { overwrite: 'true' },
      setup: 'append',
      visible: async (t: string) => (await dataset(s, `select count() from ${t}`))[0]![0] !== 1,
    },
  ] as const;
  let seq = 0;
  async function target(setup: string | null): Promise<string> {
    const t = `aon${seq++}`;
    if (setup !== null) {
      assert.equal((await exec(s, `create table ${t} (a int, b varchar)`)).status, 200);
      assert.equal((await exec(s, `insert into ${t} values (0, 'kept')`)).status, 200);
    }
    return t;
  }

  for (const { what, params, setup, visible } of targets) {
    // The data part, complete (its closing delimiter and the next part's boundary line are sent with it).
    const dataPart = (): Buffer => multipart([data(csv)], `--${BOUNDARY}\r\n`);

    test(`a malformed part after a complete data part answers 400; nothing is visible before or after (${what})`, async () => {
      const t = await target(setup);
      const r = await rawUpload(s, { name: t, fmt: 'json', ...params }, [
        dataPart(),
        async () => assert.equal(await visible(t), false, 'visible before the end of the body'),
        Buffer.from(`this is not a header\r\n\r\nxyz\r\n--${BOUNDARY}--\r\n`),
      ]);
      assert.equal(r.status, 400, r.text);
      assert.match(JSON.parse(r.text).status, /malformed multipart request: Malformed part header/);
      assert.equal(await visible(t), false, 'visible after a refused request');
      await healthy(s, `the malformed part (${what})`);
    });

    test(`a body cut short of its Content-Length after the data part leaves nothing visible (${what})`, async () => {
      const t = await target(setup);
      const part = Buffer.concat([
        dataPart(),
        Buffer.from('Content-Disposition: form-data; name="more"\r\n\r\npartial'),
      ]);
      const r = await rawUpload(
        s,
        { name: t, fmt: 'json', ...params },
        [part, async () => assert.equal(await visible(t), false, 'visible before the end of the body')],
        part.length + 100_000,
      );
      assert.equal(r.status, 400, r.text);
      assert.equal(await visible(t), false, 'visible after a cut request');
      await healthy(s, `the cut body (${what})`);
    });

    test(`a schema part after the data part is not applied, the import is, and both answers say so (${what})`, async () => {
      const schema: Part = { name: 'schema', body: JSON.stringify([{ name: 'a', type: 'LONG' }]) };
      const t = await target(setup);
      const j = await upload(s, multipart([data(csv), schema]), { name: t, fmt: 'json', ...params });
      assert.equal(j.status, 200, brief(j));
      const body = j.json as { status: string; rowsImported: number; columns: Array<{ name: string; type: string }> };
      const late =
        '199 svcdb "the schema part came after the data part, so it was not applied; send it before the data part"';
      assert.equal(body.status, 'OK');
      assert.equal(body.rowsImported, 3);
      // The body stays QuestDB's; a Warning header says what was not applied.
      assert.equal(j.headers.warning, late);
      assert.equal(body.columns[0]!.type, 'INT');
      assert.deepEqual(await dataset(s, `select count() from ${t}`), [
        [setup === 'append' && what === 'an append' ? 4 : 3],
      ]);
      const u = await target(setup);
      const text = await upload(s, multipart([data(csv), schema]), { name: u, ...params });
      assert.equal(text.status, 200, brief(text));
      assert.match(text.text, /\|\s+Rows imported\s*\|\s+3\s+\|/);
      assert.equal(text.headers.warning, late);
      await healthy(s, `the late schema (${what})`);
    });
  }
});

describe('a client that goes away after its import was refused', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer();
  });
  after(async () => {
    await s.stop();
  });

  test(
    "closing mid-body after an early refusal is the client's doing: no unhandled error, nothing imported",
    { timeout: 60_000 },
    async () => {
      // atomicity=abort refuses at the bad INT on line 3, long before the end of the part; the
      // client sends less than its Content-Length promised and closes its side at once.
      const schema = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="schema"\r\n\r\n[{"name":"a","type":"INT"}]\r\n`;
      const head = Buffer.from(
        `${schema}--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="gone.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      );
      const lines = Buffer.from('a\n1\nnot a number\n' + '7\n'.repeat(600_000));
      const body = Buffer.concat([head, lines]);
      const url = new URL(s.mainUrl);
      const sock = connect(Number(url.port), url.hostname);
      const answered = new Promise<string>((resolve) => {
        let got = '';
        sock.on('data', (c: Buffer) => {
          got += c.toString('latin1');
          if (got.includes('\r\n\r\n')) resolve(got);
        });
        sock.on('close', () => resolve(got));
      });
      sock.on('error', () => {}); // our writes may meet the closed connection: expected here
      sock.write(
        `POST /imp?${new URLSearchParams({ name: 'gone', atomicity: 'abort', fmt: 'json' })} HTTP/1.1\r\nHost: x\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length + 1_000_000}\r\n\r\n`,
      );
      sock.end(body);
      const answer = await answered;
      assert.match(answer, /^HTTP\/1\.1 400 /, answer.slice(0, 300));
      sock.destroy();
      await new Promise((resolve) => setImmediate(resolve));
      await healthy(s, 'a client gone after an early refusal');
      assert.equal(await tableExists(s, 'gone'), false);
    },
  );
});

describe('imports over thousands of partitions', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer();
  });
  after(async () => {
    await s.stop();
  });

  /** Runs an import and, while it runs, `select 1` and health checks one after the other: each answers, loosely within 2 s. */
  async function whileServing(what: string, heavy: Promise<Answer>): Promise<Answer> {
    let done = false;
    const running = heavy.finally(() => {
      done = true;
    });
    const slow: number[] = [];
    let probes = 0;
    while (!done) {
      const t0 = performance.now();
      const q = await exec(s, 'select 1');
      const h = await fetch(`${s.healthUrl}/`);
      await h.arrayBuffer();
      const ms = performance.now() - t0;
      assert.equal(q.status, 200, q.text);
      assert.equal(h.status, 200);
      probes++;
      if (ms >= 2000) slow.push(Math.round(ms));
    }
    const answer = await running;
    assert.ok(probes > 0);
    assert.deepEqual(slow, [], `select 1 and the health check took this long (ms) during ${what} (${probes} probes)`);
    return answer;
  }

  test(
    'a new table, late rows into each partition, an overwrite and a DROP of 5,000 hourly partitions leave other requests served',
    { timeout: 180_000 },
    async () => {
      // Each held the event loop for 2-4 s in one piece: the appends making 5,000 partition folders,
      // the removal of the 5,000 folders a merge retires, of a replaced table's, of a dropped table's.
      const lines: string[] = [];
      for (let i = 0; i < 5000; i++)
        lines.push(`${new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString().replace('Z', '000Z')},${i}`);
      const inOrder = `ts,v\n${lines.join('\n')}\n`;
      const reversed = `ts,v\n${lines.reverse().join('\n')}\n`;
      const params = { name: 'hourly', timestamp: 'ts', partitionBy: 'HOUR', fmt: 'json' };
      const steps = [
        ['a new table', inOrder, {}, 5000],
        ['late rows', reversed, {}, 10_000],
        ['an overwrite', reversed, { overwrite: 'true' }, 5000],
      ] as const;
      for (const [what, csv, extra, count] of steps) {
        const r = await whileServing(what, upload(s, multipart([data(csv)]), { ...params, ...extra }));
        assert.equal(r.status, 200, brief(r));
        assert.deepEqual(await dataset(s, 'select count(), count_distinct(v), min(ts), max(ts) from hourly'), [
          [count, 5000, '2020-01-01T00:00:00.000000Z', '2020-07-27T07:00:00.000000Z'],
        ]);
      }
      const drop = await whileServing('the drop', exec(s, 'drop table hourly'));
      assert.equal(drop.status, 200, drop.text);
      assert.equal(await tableExists(s, 'hourly'), false);
      await healthy(s, 'imports over 5,000 partitions');
    },
  );
});
