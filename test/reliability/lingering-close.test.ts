// An answer given before the client has sent its whole request body (a
// refused /imp upload, a bad parameter, bad credentials, an unknown path) is
// read by the client, not met with a reset: the server sends it, reads and
// drops what the client still sends within a bound, and only then closes
// (lingering close). Raw sockets that keep writing, curl with a large file,
// and clients that never stop, against a capped server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertAlive, exec, rss, startCappedServer, unhandledErrors } from '../helpers/reliability.js';
import { makeRoot, type ServerProcess } from '../helpers/server-process.js';

const run = promisify(execFile);
const BOUNDARY = '------------------------f00dfeedc0ffee42';
const MIB = 1024 * 1024;
/** The server's bounds (lib/net/lingering-close.ts): what a test expects of a client that never stops. */
const LINGER_MS = 5000;
const LINGER_BYTES = 64 * MIB;

/** What a raw-socket client saw: the answer, and how its sending ended. */
interface Outcome {
  /** Everything the server sent, as Latin-1. */
  readonly raw: string;
  readonly status: number;
  /** The answer's body, cut at its Content-Length (undefined when it did not all arrive). */
  readonly body: string | undefined;
  readonly head: string;
  /** The socket error the client met (EPIPE, ECONNRESET), if any. */
  readonly error: string | null;
  /** Body bytes the client handed to its socket. */
  readonly sent: number;
  /** True when the client wrote its whole body before the connection closed. */
  readonly finished: boolean;
  /** When the first byte of the answer came, and when the connection closed, in ms from the start. */
  readonly answeredAt: number;
  readonly closedAt: number;
}

interface SlowBody {
  /** The request line and header fields, without the blank line (added here). */
  readonly head: string;
  /** The first bytes of the body, sent with the head. */
  readonly first: Buffer;
  /** Then `piece` bytes (its content repeated) every `gapMs`, `total` bytes in all (Infinity: never stops). */
  readonly piece: Buffer;
  readonly gapMs: number;
  readonly total: number;
  /** Chunked transfer coding instead of a Content-Length (for a body without an end). */
  readonly chunked?: boolean;
  /** Called once while the body is being sent, after the answer came (a check during the linger). */
  readonly whileSending?: () => Promise<void>;
}

/** Sends a request whose body keeps coming after the answer, reading all the server sends until it closes. */
function slowSend(s: ServerProcess, b: SlowBody): Promise<Outcome> {
  const url = new URL(s.mainUrl);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const sock = connect(Number(url.port), url.hostname);
    const got: Buffer[] = [];
    let error: string | null = null;
    let sent = 0;
    let finished = false;
    let answeredAt = -1;
    let checking: Promise<void> | null = null;
    const frame = (c: Buffer): Buffer =>
      b.chunked ? Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]) : c;
    const declared = b.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${b.first.length + b.total}`;
    sock.on('connect', () => {
      sock.write(Buffer.concat([Buffer.from(`${b.head}\r\n${declared}\r\n\r\n`), frame(b.first)]));
      const pump = (): void => {
        if (sock.destroyed || !sock.writable) return;
        if (answeredAt >= 0 && b.whileSending && checking === null) checking = b.whileSending();
        const n = Math.min(b.piece.length, b.total - sent);
        sent += n;
        const more = sock.write(frame(b.piece.subarray(0, n)));
        if (sent >= b.total) {
          finished = true;
          sock.end(b.chunked ? '0\r\n\r\n' : '');
          return;
        }
        // Paced by the gap; a full socket waits for its drain (a server that stopped reading shows as a timeout).
        if (more) setTimeout(pump, b.gapMs);
        else sock.once('drain', () => setTimeout(pump, b.gapMs));
      };
      pump();
    });
    sock.on('data', (c: Buffer) => {
      if (answeredAt < 0) answeredAt = performance.now() - t0;
      got.push(c);
    });
    sock.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    sock.setTimeout(60_000, () => sock.destroy(new Error('no progress for 60 s')));
    sock.on('close', () => {
      const closedAt = performance.now() - t0;
      void Promise.resolve(checking).then(() => {
        const all = Buffer.concat(got);
        const end = all.indexOf('\r\n\r\n');
        const head = end < 0 ? all.toString('latin1') : all.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
        const body =
          end >= 0 && all.length >= end + 4 + length
            ? all.subarray(end + 4, end + 4 + length).toString('utf8')
            : undefined;
        resolve({
          raw: all.toString('latin1'),
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
          body,
          head,
          error,
          sent,
          finished,
          answeredAt,
          closedAt,
        });
      });
    });
  });
}

/** The head of a POST with the multipart Content-Type. */
const post = (path: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${extra}`.replace(
    /\r\n$/,
    '',
  );
const dataPart = (filename: string): Buffer =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`,
  );
/** CSV lines that are all valid INTs: what comes after the point where the import was refused. */
const SEVENS = Buffer.from('7\n'.repeat(32 * 1024));

function brief(o: Outcome): string {
  return `status ${o.status}, error ${o.error}, sent ${o.sent}, finished ${o.finished}, answered at ${o.answeredAt.toFixed(0)} ms, closed at ${o.closedAt.toFixed(0)} ms: ${o.raw.slice(0, 300)}`;
}

/** The answer came whole and the client finished its body without a reset. */
function assertHeard(o: Outcome, status: number, body: RegExp): void {
  assert.equal(o.error, null, `the client met a broken connection: ${brief(o)}`);
  assert.equal(o.status, status, brief(o));
  assert.ok(o.body !== undefined, `the answer's body did not all arrive: ${brief(o)}`);
  assert.match(o.body, body, brief(o));
  assert.match(o.head, /\r\nConnection: close\r\n/i, brief(o));
  assert.ok(o.finished, `the connection closed before the client had sent its body: ${brief(o)}`);
}

async function tableRows(s: ServerProcess, name: string): Promise<number | null> {
  const r = await exec(s, `select count() from tables() where table_name = '${name}'`);
  assert.equal(r.status, 200, r.text);
  if ((r.json as { dataset: number[][] }).dataset[0]![0] === 0) return null;
  const c = await exec(s, `select count() from '${name}'`);
  return (c.json as { dataset: number[][] }).dataset[0]![0]!;
}

describe('an answer given while the client is still sending its body', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer();
  });
  after(async () => {
    await s.stop();
  });

  // ~4 MB sent over ~2-4 s after the answer: more, and for longer, than a server that reads a little
  // and closes would take, so a reset (EPIPE on a write, ECONNRESET) shows reliably, not only under load.
  const slow = { piece: Buffer.alloc(64 * 1024, 0x61), gapMs: 30, total: 4 * MIB };

  for (const [what, head, first, status, answer] of [
    [
      'part headers past the multipart parser limit',
      post('/imp?fmt=json'),
      dataPart('h'.repeat(200_000)),
      400,
      /^\{"status":"malformed multipart request: Malformed part header"\}$/,
    ],
    [
      'a bad parameter',
      post('/imp?fmt=json&partitionBy=WEEKLY'),
      dataPart('p.csv'),
      400,
      /^\{"status":"invalid partitionBy"\}$/,
    ],
    [
      'a body that is not multipart',
      'POST /imp?fmt=json HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv',
      Buffer.from('a,b\n1,2\n'),
      400,
      /^Non-multipart POST not supported\r\n$/,
    ],
    [
      'a schema part past its limit',
      post('/imp?fmt=json&name=early_schema'),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="schema"; filename="s.json"\r\n\r\n[`),
      400,
      /^\{"status":"the schema part is larger than 1048576 bytes"\}$/,
    ],
    ['an unknown path', post('/nope'), dataPart('n.csv'), 404, /^Not Found/],
    [
      'a method the path does not take',
      post('/exp?query=select%201'),
      dataPart('m.csv'),
      405,
      /^Method POST not supported/,
    ],
  ] as const) {
    test(`${what}: the client reads the whole answer, sends its whole body, and the connection then closes`, async () => {
      const o = await slowSend(s, { head, first, ...slow });
      assertHeard(o, status, answer);
      assert.ok(o.answeredAt < o.closedAt, brief(o));
    });
  }

  test('an import refused mid-file (atomicity=abort): the answer, the rest of the upload read, nothing imported', async () => {
    const schema = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="schema"\r\n\r\n[{"name":"a","type":"INT"}]\r\n`;
    const refusals = (): string[] => s.stdout().match(/^.* POST \/imp 400 .*$/gm) ?? [];
    const seen = refusals().length;
    let lineDuringLinger: string | null = null;
    let otherImport = 0;
    const o = await slowSend(s, {
      head: post('/imp?fmt=json&name=early_mid&atomicity=abort'),
      first: Buffer.concat([Buffer.from(schema), dataPart('mid.csv'), Buffer.from('a\n1\nnot a number\n')]),
      piece: SEVENS,
      gapMs: 30,
      total: 3 * MIB,
      // The request is over for the server once answered: its log line is out and its table is free, while
      // the client is still sending.
      whileSending: async () => {
        for (let i = 0; i < 200 && refusals().length === seen; i++) await new Promise((r) => setTimeout(r, 50));
        lineDuringLinger = refusals()[seen] ?? null;
        const r = await fetch(`${s.mainUrl}/imp?fmt=json&name=early_mid`, {
          method: 'POST',
          body: (() => {
            const f = new FormData();
            f.append('data', new Blob(['a\n1\n2\n']), 'ok.csv');
            return f;
          })(),
        });
        otherImport = r.status;
      },
    });
    assertHeard(o, 400, /^\{"status":".*\[atomicity=abort/);
    assert.ok(lineDuringLinger !== null && !/\(cut\)/.test(lineDuringLinger), String(lineDuringLinger));
    assert.equal(otherImport, 200, 'an import of the same table while the refused one was still being drained');
    assert.equal(await tableRows(s, 'early_mid'), 2);
  });

  test('curl -F with a 24 MB file to a refused import prints the JSON error and exits 0', async () => {
    const dir = makeRoot();
    const big = join(dir, 'big.csv');
    writeFileSync(big, Buffer.concat([Buffer.from('a,b\n'), Buffer.alloc(24 * MIB, '1,2\n')]));
    const curl = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
      run('curl', ['-sS', ...args], { maxBuffer: MIB }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    for (const [args, expected] of [
      [['-F', `data=@${big}`, `${s.mainUrl}/imp?fmt=json&partitionBy=WEEKLY`], '{"status":"invalid partitionBy"}'],
      [
        ['-F', `data=@${big}`, `${s.mainUrl}/imp?fmt=json&name=curl_when&timestamp=nope`],
        `{"status":"invalid timestamp column 'nope'"}`,
      ],
      [
        ['--data-binary', `@${big}`, '-H', 'Content-Type: text/csv', `${s.mainUrl}/imp?fmt=json`],
        'Non-multipart POST not supported\r\n',
      ],
    ] as const) {
      const r = await curl([...args]);
      assert.deepEqual({ code: r.code, stdout: r.stdout, stderr: r.stderr }, { code: 0, stdout: expected, stderr: '' });
    }
    assert.equal(await tableRows(s, 'curl_when'), null);
    await assertAlive(s, 'curl uploads refused early');
    assert.equal(await unhandledErrors(s), 0);
  });

  test("a client that writes its whole body before reading (Python's http.client, as requests does) reads the error", async (t) => {
    const python = await run('python3', ['--version']).then(
      () => true,
      () => false,
    );
    if (!python) {
      t.skip('no python3');
      return;
    }
    // The whole body is written first; only then is the answer read. A server that closes before reading
    // the body makes the write fail (BrokenPipeError) and the answer is never seen.
    const script = [
      'import http.client, sys',
      'url, size, ctype = sys.argv[1], int(sys.argv[2]), sys.argv[3]',
      `b = '${BOUNDARY}'`,
      'head = (\'--\' + b + \'\\r\\nContent-Disposition: form-data; name="data"; filename="p.csv"\\r\\n\\r\\n\').encode()',
      "body = head + b'1,2\\n' * (size // 4) + ('\\r\\n--' + b + '--\\r\\n').encode()",
      "host, path = url.split('/', 3)[2], '/' + url.split('/', 3)[3]",
      'c = http.client.HTTPConnection(host)',
      "c.request('POST', path, body=body, headers={'Content-Type': ctype})",
      'r = c.getresponse()',
      "sys.stdout.write(str(r.status) + ' ' + r.read().decode())",
    ].join('\n');
    const multipartType = `multipart/form-data; boundary=${BOUNDARY}`;
    for (const [path, ctype, expected] of [
      ['/imp?fmt=json&partitionBy=WEEKLY', multipartType, '400 {"status":"invalid partitionBy"}'],
      ['/imp?fmt=json&name=py_when&timestamp=nope', multipartType, `400 {"status":"invalid timestamp column 'nope'"}`],
      ['/imp?fmt=json', 'text/csv', '400 Non-multipart POST not supported\r\n'],
      ['/nope', multipartType, '404 Not Found\r\n'],
    ] as const) {
      const r = await run('python3', ['-c', script, `${s.mainUrl}${path}`, String(24 * MIB), ctype]).then(
        (x) => x.stdout,
        (e: { stderr: string }) => `failed: ${e.stderr.slice(-300)}`,
      );
      assert.equal(r, expected, path);
    }
    assert.equal(await tableRows(s, 'py_when'), null);
    await assertAlive(s, 'whole bodies written before reading');
    assert.equal(await unhandledErrors(s), 0);
  });

  test('a client that never stops sending gets the answer and is cut off after the bound; the server stays healthy', async () => {
    const before = rss(s);
    // Slow: the time bound ends it.
    const trickle = await slowSend(s, {
      head: post('/imp?fmt=json&partitionBy=WEEKLY'),
      first: dataPart('t.csv'),
      piece: Buffer.alloc(16 * 1024, 0x62),
      gapMs: 20,
      total: Infinity,
      chunked: true,
    });
    assert.equal(trickle.status, 400, brief(trickle));
    assert.equal(trickle.body, '{"status":"invalid partitionBy"}', brief(trickle));
    assert.equal(trickle.finished, false);
    const held = trickle.closedAt - trickle.answeredAt;
    assert.ok(held > LINGER_MS - 500 && held < LINGER_MS + 5000, `held ${held.toFixed(0)} ms: ${brief(trickle)}`);
    // Fast: the byte bound ends it, and nothing of what is dropped is kept.
    const flood = await slowSend(s, {
      head: post('/imp?fmt=json&partitionBy=WEEKLY'),
      first: dataPart('f.csv'),
      piece: Buffer.alloc(256 * 1024, 0x63),
      gapMs: 0,
      total: Infinity,
      chunked: true,
    });
    assert.equal(flood.status, 400, brief(flood));
    assert.equal(flood.body, '{"status":"invalid partitionBy"}', brief(flood));
    assert.equal(flood.finished, false);
    assert.ok(
      flood.closedAt - flood.answeredAt < LINGER_MS + 5000,
      `held ${(flood.closedAt - flood.answeredAt).toFixed(0)} ms: ${brief(flood)}`,
    );
    // Cut at the byte bound unless the time bound came first (a loaded machine).
    assert.ok(
      flood.sent >= LINGER_BYTES || flood.closedAt - flood.answeredAt > LINGER_MS - 500,
      `cut early: ${brief(flood)}`,
    );
    assert.ok(flood.sent < LINGER_BYTES + 64 * MIB, `read far past the bound: ${brief(flood)}`);
    assert.ok(rss(s).peak - before.peak < 48 * MIB, `peak RSS grew by ${(rss(s).peak - before.peak) / MIB} MiB`);
    await assertAlive(s, 'clients that never stop');
    assert.equal(await unhandledErrors(s), 0);
  });
});

describe('an answer to bad credentials while the client is still sending', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startCappedServer({ env: { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: 'pw' } });
  });
  after(async () => {
    await s.stop();
  });

  test('a 401 to an upload without credentials is read whole; the body is drained, nothing imported', async () => {
    const o = await slowSend(s, {
      head: post('/imp?fmt=json&name=early_auth'),
      first: dataPart('auth.csv'),
      piece: Buffer.from('1\n'.repeat(32 * 1024)),
      gapMs: 30,
      total: 3 * MIB,
    });
    assertHeard(o, 401, /unauthorized/);
    assert.match(o.head, /\r\nWWW-Authenticate: Basic realm="svcdb"/i);
  });
});

test('a stop while an answered connection still drains its body does not wait for the drain', async () => {
  const s = await startCappedServer();
  let stoppedIn = -1;
  const o = await slowSend(s, {
    head: post('/imp?fmt=json&partitionBy=WEEKLY'),
    first: dataPart('stop.csv'),
    piece: Buffer.alloc(16 * 1024, 0x64),
    gapMs: 20,
    total: Infinity,
    chunked: true,
    whileSending: async () => {
      const t0 = performance.now();
      assert.equal(await s.stop(), 0);
      stoppedIn = performance.now() - t0;
    },
  });
  assert.equal(o.body, '{"status":"invalid partitionBy"}', brief(o));
  assert.ok(stoppedIn >= 0 && stoppedIn < LINGER_MS - 1000, `stopped in ${stoppedIn.toFixed(0)} ms`);
});
