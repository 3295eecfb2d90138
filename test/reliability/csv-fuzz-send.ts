// Sending the CSV fuzzer's uploads (fuzz-csv.test.ts, npm run soak) and
// judging them: below 500, the answer /imp promises, and atomicity (a refused
// or cut import leaves nothing visible; an accepted one holds exactly
// rowsImported rows). Cut uploads go over raw sockets; the server's log line
// for the request says when it has finished with one.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { FuzzServer } from './fuzz-harness.js';
import { APPEND_TABLES, type CsvRequest } from './csv-fuzz-gen.js';
import { encodeQuery } from './sql-fuzz-hostile.js';

/** The log line the server writes when it has finished an /imp request, whatever became of it. */
const IMP_DONE = / POST \/imp \d+/;
/** An upload (at most a few MB) answered later than this is a failure: it held the server far too long. */
const UPLOAD_SLOW_MS = 20_000;

/** Judges uploads against one FuzzServer; existing tables are appended to one request at a time. */
export class UploadChecker {
  /** /imp requests sent to the server's current life (its log must show as many before a cut one is judged). */
  #impSent = 0;
  #generation = 0;
  /** One request at a time per existing table, so its row count before and after is the request's own doing. */
  readonly #locks = new Map<string, Promise<void>>();

  constructor(
    readonly fz: FuzzServer,
    readonly deadlineMs: number,
  ) {}

  async #sql(query: string): Promise<{ status: number; dataset?: unknown[][]; text: string } | null> {
    // The checks are the harness's, not fuzz: they may wait for a busy server.
    const r = await this.fz.send(
      `/exec?query=${encodeQuery(query)}`,
      { headers: { 'Statement-Timeout': '60000' } },
      { index: -1, category: 'check', repro: query },
    );
    if (r === null) return null;
    const text = r.body.toString('utf8');
    try {
      return { status: r.status, text, dataset: (JSON.parse(text) as { dataset?: unknown[][] }).dataset };
    } catch {
      return { status: r.status, text };
    }
  }

  /** Creates the tables appends go to, with some rows. */
  async setup(): Promise<void> {
    for (const t of APPEND_TABLES) assert.equal((await this.#sql(t.create))?.status, 200, t.create);
    const fill = [
      "INSERT INTO fzc_app0 SELECT timestamp_sequence('2024-01-01', 60000000L), rnd_symbol('AAPL', 'MSFT'), rnd_double(), rnd_long(0, 100, 0), rnd_varchar(1, 9, 1) FROM long_sequence(500)",
      "INSERT INTO fzc_app1 VALUES (1, 'a', true), (2, null, false)",
    ];
    for (const q of fill) assert.equal((await this.#sql(q))?.status, 200, q);
  }

  /** Rows of a table now, null when it does not exist, undefined when the server could not say (recorded). */
  async rows(
    table: string,
    what: { index: number; category: string; repro: string },
  ): Promise<number | null | undefined> {
    const c = await this.#sql(`SELECT count() FROM '${table}'`);
    if (c?.status === 200) return Number(c.dataset?.[0]?.[0]);
    if (c?.status === 400 && /does not exist/.test(c.text)) return null;
    if (c !== null && !this.fz.gaveUp)
      this.fz.fail({
        ...what,
        problem: 'the row count could not be read',
        detail: `SELECT count() FROM '${table}': ${c.status} ${c.text.slice(0, 300)}`,
      });
    return undefined;
  }

  /** Sends a body over a raw socket and stops early (a cut body or a client that goes away); the answer, if any. */
  #sendRaw(req: CsvRequest): Promise<string> {
    const url = new URL(this.fz.mainUrl);
    const declared = req.delivery.kind === 'short' ? req.delivery.declared : req.body.length;
    const head =
      `POST /imp?${new URLSearchParams(req.params)} HTTP/1.1\r\nHost: ${url.host}\r\n` +
      `${Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}Content-Length: ${declared}\r\nConnection: close\r\n\r\n`;
    const done = this.fz.track({ index: req.index, category: req.category, repro: req.describe });
    return new Promise<string>((resolve) => {
      let answer = '';
      const sock = connect(Number(url.port), url.hostname, () => {
        if (req.delivery.kind === 'disconnect') {
          sock.write(Buffer.concat([Buffer.from(head), req.body.subarray(0, req.delivery.bytes)]), () =>
            sock.destroy(),
          );
        } else {
          sock.end(Buffer.concat([Buffer.from(head), req.body]));
        }
      });
      sock.setTimeout(this.deadlineMs, () => sock.destroy());
      sock.on('data', (d: Buffer) => {
        answer += d.toString('latin1');
      });
      sock.on('error', () => {
        /* a reset is one of the outcomes; the server's log says when it is done */
      });
      sock.on('close', () => resolve(answer));
    }).finally(done);
  }

  /**
   * Sends one upload and records every way its answer or its effect is wrong. `replay`: it was
   * sent before, so a table of its own is dropped first (its first attempt may have created it).
   */
  async send(req: CsvRequest, replay = false): Promise<void> {
    if (replay && !req.append && req.table !== null) await this.#sql(`DROP TABLE IF EXISTS '${req.table}'`);
    const fz = this.fz;
    const what = { index: req.index, category: req.category, repro: req.describe };
    const lockKey = req.appendTable;
    let release = (): void => {};
    if (lockKey) {
      const prev = this.#locks.get(lockKey) ?? Promise.resolve();
      const mine = new Promise<void>((r) => {
        release = r;
      });
      this.#locks.set(
        lockKey,
        prev.then(() => mine),
      );
      await prev;
    }
    try {
      // New tables have names of their own (seed and number): they do not exist before.
      const before = req.table && req.append ? await this.rows(req.table, what) : null;
      if (before === undefined) return;
      if (req.append && req.table !== null && before === null) {
        if (!fz.gaveUp)
          fz.fail({
            ...what,
            problem: 'atomicity: an append table vanished',
            detail: `${req.table} no longer exists before upload #${req.index}`,
          });
        return;
      }
      if (fz.generation !== this.#generation) {
        this.#generation = fz.generation;
        this.#impSent = 0;
      }
      this.#impSent++;
      let accepted = false;
      let imported = 0;
      /** The start of the answer, for the failure's detail. */
      let answered = '';
      if (req.delivery.kind === 'whole') {
        const r = await fz.send(
          `/imp?${new URLSearchParams(req.params)}`,
          { method: 'POST', headers: req.headers, body: req.body },
          what,
          { slowMs: UPLOAD_SLOW_MS },
        );
        if (r === null) return;
        fz.count(String(r.status));
        const text = r.body.toString('utf8');
        answered = `${r.status} ${text.slice(0, 300)}`;
        if (r.status >= 500) {
          fz.fail({ ...what, problem: `status ${r.status}`, detail: `${text.slice(0, 600)}\n${fz.criticalLines()}` });
          return;
        }
        let json: { status?: unknown; rowsImported?: unknown } | undefined;
        try {
          json = JSON.parse(text) as typeof json;
        } catch {
          json = undefined;
        }
        if (r.status === 200) {
          const tabular = /Rows imported\s*\|\s*(\d+)/.exec(text); // QuestDB's fixed-width layout
          accepted = json ? json.status === 'OK' : tabular !== null;
          imported = Number(json ? json.rowsImported : tabular?.[1]);
          if (accepted && !Number.isInteger(imported))
            fz.fail({
              ...what,
              problem: 'malformed answer',
              detail: `an accepted import without its row count: ${text.slice(0, 400)}`,
            });
        } else if (
          r.status === 400 &&
          req.params.fmt === 'json' &&
          typeof json?.status !== 'string' &&
          text !== 'Non-multipart POST not supported\r\n'
        ) {
          // (QuestDB answers a body that is not multipart with that line of text, whatever fmt says.)
          fz.fail({
            ...what,
            problem: 'malformed answer',
            detail: `a 400 with fmt=json that is not {"status": message}: ${text.slice(0, 400)}`,
          });
        }
      } else {
        const answer = await this.#sendRaw(req);
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
        answered = status ? answer.slice(0, 300) : 'no answer';
        fz.count(status ? String(status) : 'no answer');
        if (status >= 500)
          fz.fail({ ...what, problem: `status ${status}`, detail: `${answer.slice(0, 600)}\n${fz.criticalLines()}` });
        // The server has finished with it once its log line is out; only then is "nothing visible" meaningful.
        if (!(await fz.waitForLogCount(IMP_DONE, this.#impSent, this.deadlineMs))) {
          if (fz.server.child.exitCode === null && fz.server.child.signalCode === null) {
            fz.fail({
              ...what,
              problem: 'a cut upload was never finished',
              detail: `no "POST /imp" log line for it within ${this.deadlineMs} ms`,
            });
          } else {
            await fz.send('/exec?query=select%201', {}, what); // lets the harness record the crash and restart
          }
          return;
        }
      }
      fz.sampleRss();
      if (req.table === null || fz.gaveUp) return;
      const now = await this.rows(req.table, what);
      if (now === undefined) return;
      if (accepted) {
        const expected = req.params.overwrite === 'true' || !req.append ? imported : (before ?? 0) + imported;
        if (now !== expected)
          fz.fail({
            ...what,
            problem: 'atomicity: rows differ from rowsImported',
            detail: `${req.table} holds ${now} rows; expected ${expected} (before ${before}, rowsImported ${imported})`,
          });
      } else if (now !== before) {
        fz.fail({
          ...what,
          problem: 'atomicity: a refused or cut import left rows',
          detail: `${req.table} holds ${now === null ? 'no table' : `${now} rows`}; before it ${before === null ? 'did not exist' : `held ${before}`}; the answer: ${answered}`,
        });
      }
    } finally {
      release();
    }
  }
}
