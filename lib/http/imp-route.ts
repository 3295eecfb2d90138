// POST /imp (SPEC.md "POST /imp"): a multipart upload streamed through busboy
// into the importer, part by part, with backpressure all the way to the
// socket. The `schema` part (JSON) applies when it comes before `data`; one
// that comes after is accepted and not applied, as QuestDB does, and the
// answer says so in a Warning header (its body stays QuestDB's). The data may
// be gzip-compressed (detected by its magic bytes or a .gz file name, or the
// whole request with Content-Encoding: gzip). The import is published only
// once the whole body has been read and parsed without error: a malformed part
// after the data, a body cut short or a client that goes away leave nothing
// visible. Request-level problems answer {"status": message} (4xx) with
// fmt=json, and the message as text with status 200 in the tabular format,
// as QuestDB answers them; a body that is not multipart is a 400 in text.
// A refusal is answered as soon as it is known, the parser stopped; the rest
// of the body is read and dropped before the connection closes (writeError).
import busboy from 'busboy';
import { finished, pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Database, ImportJob } from '../db/database.js';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import { importError, type ImportResult, type SchemaEntry } from '../ingest/importer.js';
import type { ImportParams } from '../ingest/import-params.js';
import { parseSchema } from '../ingest/schema.js';
import { importJson, importText } from '../ingest/import-report.js';
import { sanitizeName, tableNameFromFile } from '../ingest/import-names.js';
import { asSvcError, errorClass, writeError } from './error-response.js';
import type { RequestContext, Route } from './router.js';

export interface ImportRouteOptions {
  /** The open database: its http.text.analysis.max.lines and import limits apply. */
  readonly database: () => Database;
}

/** The largest schema part (a field or a file part). */
const SCHEMA_BYTES = 1 << 20;
/** File parts read; further ones are skipped (only the first `data` part is imported). */
const MAX_FILES = 4;
/** What the answer says about a schema part that came after the data part. */
export const LATE_SCHEMA_NOTE =
  'the schema part came after the data part, so it was not applied; send it before the data part';

/** An import's result, and what the answer should say beside it. */
interface Upload {
  readonly result: ImportResult;
  readonly notes: readonly string[];
}

/** A request body that is not a multipart upload: QuestDB's answer, before anything else. */
class NotMultipart extends Error {}

async function handleImport(ctx: RequestContext, o: ImportRouteOptions): Promise<void> {
  // The answer's format first, so that even a bad parameter is answered in it.
  let json = (ctx.url.searchParams.get('fmt') ?? '').toLowerCase() === 'json';
  try {
    if (!/^multipart\/form-data/i.test(ctx.req.headers['content-type'] ?? '')) throw new NotMultipart();
    const p = o.database().importParams(ctx.url.searchParams);
    json = p.json;
    const { result, notes } = await runUpload(ctx, o, p);
    const body = json ? importJson(result) : importText(result);
    ctx.stats.rows += result.rowsImported;
    ctx.stats.bytes += Buffer.byteLength(body);
    const headers: Record<string, string | number | string[]> = {
      'Content-Type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    };
    // RFC 7234's Warning (code 199, miscellaneous): what did not stop the import, without changing QuestDB's body.
    if (notes.length > 0) headers.Warning = notes.map((n) => `199 svcdb ${JSON.stringify(n)}`);
    ctx.res.writeHead(200, headers);
    ctx.res.end(body);
  } catch (err) {
    if (err instanceof NotMultipart) {
      const e = ctx.report(new SvcError('BAD_REQUEST', 'Non-multipart POST not supported', { plainText: true }));
      writeError(ctx.res, e, { kind: 'import', json }, { Connection: 'close' });
      return;
    }
    // Client mistakes and conditions of the machine (a full disk: 507) are answered in the import's
    // own shape; internal errors go to the one mapper (500).
    const e = asSvcError(err);
    if (!isSvcError(e) || errorClass(e) === 'internal' || ctx.res.headersSent) throw err;
    ctx.report(e);
    // The tabular format answers as QuestDB does, 200 with the message; fmt=json keeps the status that says what went wrong.
    // The answer comes at once; a client still sending reads it, and the rest of its body is dropped (writeError).
    writeError(ctx.res, e, { kind: 'import', json }, { Connection: 'close' });
  }
}

function runUpload(ctx: RequestContext, o: ImportRouteOptions, p: ImportParams): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // File names are UTF-8 (curl, browsers); busboy's default would read them as Latin-1.
      bb = busboy({
        headers: ctx.req.headers,
        limits: { fieldSize: SCHEMA_BYTES, files: MAX_FILES },
        defParamCharset: 'utf8',
      });
    } catch (e) {
      reject(importError(`malformed multipart request: ${(e as Error).message}`));
      return;
    }
    let schema: SchemaEntry[] = [];
    let importer: ImportJob | null = null;
    /** The data part read to its end, written out of sight (complete()); published at the end of the body. */
    let importing: Promise<ImportResult> | null = null;
    let lateSchema = false;
    let failed: unknown = null;
    const encoding = String(ctx.req.headers['content-encoding'] ?? '').toLowerCase();
    const gunzip = encoding === 'gzip' ? createGunzip() : null;
    // The first failure undoes the import (its memory and table at once) and answers at once, with
    // Connection: close; the rest of the body is no longer parsed but read and dropped (writeError).
    const fail = (e: unknown): void => {
      if (failed !== null) return;
      failed = e;
      importer?.abort();
      ctx.req.unpipe();
      // After the event being handled (busboy may be inside its own write); ends the part being read.
      setImmediate(() => {
        gunzip?.destroy();
        bb.destroy();
      });
      reject(e);
    };
    const schemaTooLarge = (): SvcError => importError(`the schema part is larger than ${SCHEMA_BYTES} bytes`);
    bb.on('field', (name, value, info) => {
      if (name !== 'schema' || failed !== null) return;
      if (importing) {
        lateSchema = true;
        return;
      }
      if (info.valueTruncated) {
        fail(schemaTooLarge());
        return;
      }
      try {
        schema = parseSchema(value);
      } catch (e) {
        fail(e);
      }
    });
    bb.on('file', (name, stream, info) => {
      // A body cut short, or a parser stopped by fail(), destroys the part being read; the failure is
      // handled where it happened (`done` below, or the first fail()); a part nobody reads any more (skipped, or after
      // the import stopped) must not turn it into an uncaught exception.
      stream.on('error', () => {});
      if (failed !== null) {
        stream.resume();
        return;
      }
      if (name === 'schema') {
        if (importing) {
          lateSchema = true;
          stream.resume();
          return;
        }
        const parts: Buffer[] = [];
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          if (size > SCHEMA_BYTES) {
            fail(schemaTooLarge());
            return;
          } // the rest is read and dropped
          parts.push(c);
        });
        stream.on('end', () => {
          if (failed !== null) return;
          try {
            schema = parseSchema(Buffer.concat(parts).toString('utf8'));
          } catch (e) {
            fail(e);
          }
        });
        return;
      }
      if (name !== 'data' || importing) {
        stream.resume();
        return;
      }
      const location = info.filename ?? 'data';
      const table = p.name !== null ? sanitizeName(p.name, 'import') : tableNameFromFile(location);
      const job = o.database().importJob({ opts: p.opts, table, schema, location });
      importer = job;
      // Not destroyed when the import stops early: the rest of the part is read and dropped (stream.resume())
      // until fail() stops the parser; what the client still sends is then drained by the answer.
      const source: AsyncIterable<Buffer> = {
        [Symbol.asyncIterator]: () => stream.iterator({ destroyOnReturn: false }),
      };
      // Out of sight until the whole body is read (publish() below); the part's failures stop it before each chunk.
      importing = job
        .stage(source, { stopped: () => failed ?? (gone() ? disconnected() : null) })
        .catch((e: unknown) => {
          stream.resume();
          throw e;
        });
      importing.catch(fail);
    });
    const gone = (): boolean => ctx.signal.aborted || (ctx.req.destroyed && !ctx.req.complete);
    const disconnected = (): SvcError =>
      new SvcError('BAD_REQUEST', 'client disconnected during the upload; nothing was imported');
    bb.on('error', (e) =>
      fail(gone() ? disconnected() : importError(`malformed multipart request: ${(e as Error).message}`)),
    );
    // Piped, not pipelined: stream.pipeline would destroy the request on a parse error, and with it the
    // connection, so that a client still sending met a reset instead of the answer.
    ctx.req.pipe(gunzip ?? bb);
    const done = Promise.all([finished(ctx.req), gunzip ? pipeline(gunzip, bb) : finished(bb)]);
    done.catch((e: unknown) =>
      fail(gone() ? disconnected() : importError(`the upload failed: ${(e as Error).message}`)),
    );
    bb.on('close', () => {
      if (failed !== null) {
        reject(failed);
        return;
      }
      if (!importing || !importer) {
        fail(importError('the upload has no "data" part'));
        return;
      }
      const imp = importer;
      // Published only now: the body was read to its end (done) and every part parsed without error.
      Promise.all([importing, done])
        .then(async ([result]) => {
          if (failed !== null) throw failed;
          if (gone()) throw disconnected();
          await imp.publish();
          return { result, notes: lateSchema ? [LATE_SCHEMA_NOTE] : [] };
        })
        .then(resolve, fail);
    });
  });
}

export function importRoutes(o: ImportRouteOptions): Route[] {
  return [{ endpoint: 'imp', paths: ['/imp'], methods: { POST: (ctx) => handleImport(ctx, o) } }];
}
