// POST /imp (SPEC.md "POST /imp"): a multipart upload streamed through busboy
// into the importer, part by part, with backpressure all the way to the
// socket. The `schema` part (JSON) must come before `data`. The data may be
// gzip-compressed (detected by its magic bytes or a .gz file name, or the
// whole request with Content-Encoding: gzip). A client that goes away rolls
// the import back; request-level problems answer {"status": message}.
import busboy from 'busboy';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { maybeGunzip } from '../ingest/gunzip.js';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import { importError, Importer, type SchemaEntry } from '../ingest/importer.js';
import { parseImportParams, type ImportParams } from '../ingest/import-params.js';
import { parseSchema } from '../ingest/schema.js';
import { importJson, importText } from '../ingest/import-report.js';
import { sanitizeName, tableNameFromFile } from '../ingest/import-names.js';
import type { Catalog } from '../storage/catalog.js';
import type { RequestContext, Route } from './router.js';

export interface ImportRouteOptions {
  readonly catalog: () => Catalog;
  /** http.text.analysis.max.lines */
  readonly analysisLines: number;
}

async function handleImport(ctx: RequestContext, o: ImportRouteOptions): Promise<void> {
  // The answer's format first, so that even a bad parameter is answered in it.
  let json = (ctx.url.searchParams.get('fmt') ?? '').toLowerCase() === 'json';
  try {
    const p = parseImportParams(ctx.url.searchParams, o.analysisLines);
    json = p.json;
    const result = await runUpload(ctx, o, p);
    const body = json ? importJson(result) : importText(result);
    ctx.stats.rows += result.rowsImported;
    ctx.stats.bytes += Buffer.byteLength(body);
    ctx.res.writeHead(200, { 'Content-Type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    ctx.res.end(body);
  } catch (e) {
    if (!isSvcError(e) || e.status >= 500 || ctx.res.headersSent) throw e;
    ctx.log.info(`import failed: ${e.message}`);
    await settle(ctx, 4 << 20, 1000);
    const body = json ? JSON.stringify({ status: e.message }) : `${e.message}\n`;
    ctx.res.writeHead(e.status, { 'Content-Type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    ctx.res.end(body);
  }
}

/**
 * Lets a client that is still sending finish (reading and dropping at most
 * `maxBytes` for `maxMs`), so that it reads the answer instead of failing its
 * write; past that the connection is closed after the answer.
 */
function settle(ctx: RequestContext, maxBytes: number, maxMs: number): Promise<void> {
  const req = ctx.req;
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      resolve();
    };
    const onData = (c: Buffer): void => { seen += c.length; if (seen > maxBytes) done(); };
    const timer = setTimeout(done, maxMs);
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}

function runUpload(ctx: RequestContext, o: ImportRouteOptions, p: ImportParams): Promise<Awaited<ReturnType<Importer['finish']>>> {
  const type = ctx.req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw importError('expected a multipart/form-data upload with a "data" part');
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // File names are UTF-8 (curl, browsers); busboy's default would read them as Latin-1.
      bb = busboy({ headers: ctx.req.headers, limits: { fieldSize: 1 << 20, files: 4 }, defParamCharset: 'utf8' });
    } catch (e) {
      reject(importError(`malformed multipart request: ${(e as Error).message}`));
      return;
    }
    let schema: SchemaEntry[] = [];
    let importing: Promise<Awaited<ReturnType<Importer['finish']>>> | null = null;
    let failed: unknown = null;
    // The first failure answers at once (with Connection: close, so the rest of a large upload is not read).
    const fail = (e: unknown): void => {
      if (failed !== null) return;
      failed = e;
      reject(e);
    };
    bb.on('field', (name, value) => {
      if (name !== 'schema') return;
      if (importing) { fail(importError('the schema part must come before the data part')); return; }
      try { schema = parseSchema(value); } catch (e) { fail(e); }
    });
    bb.on('file', (name, stream, info) => {
      if (failed !== null) { stream.resume(); return; }
      if (name === 'schema') {
        const parts: Buffer[] = [];
        stream.on('data', (c: Buffer) => parts.push(c));
        stream.on('end', () => {
          if (importing) { fail(importError('the schema part must come before the data part')); return; }
          try { schema = parseSchema(Buffer.concat(parts).toString('utf8')); } catch (e) { fail(e); }
        });
        return;
      }
      if (name !== 'data' || importing) { stream.resume(); return; }
      const location = info.filename ?? 'data';
      const table = p.name !== null ? sanitizeName(p.name, 'import') : tableNameFromFile(location);
      const importer = new Importer(o.catalog(), { ...p.opts, table, location, schema });
      importing = (async () => {
        try {
          for await (const chunk of maybeGunzip(stream, location)) {
            if (gone()) throw disconnected();
            await importer.push(chunk);
          }
          if (gone()) throw disconnected();
          return await importer.finish();
        } catch (e) {
          importer.abort();
          stream.resume();
          throw e;
        }
      })();
      importing.catch(fail);
    });
    const gone = (): boolean => ctx.signal.aborted || (ctx.req.destroyed && !ctx.req.complete);
    const disconnected = (): SvcError => new SvcError('BAD_REQUEST', 'client disconnected during the upload; nothing was imported');
    bb.on('error', (e) => fail(gone() ? disconnected() : importError(`malformed multipart request: ${(e as Error).message}`)));
    bb.on('close', () => {
      if (failed !== null) { reject(failed); return; }
      if (!importing) { reject(importError('the upload has no "data" part')); return; }
      importing.then(resolve, reject);
    });
    const encoding = String(ctx.req.headers['content-encoding'] ?? '').toLowerCase();
    const done = encoding === 'gzip' ? pipeline(ctx.req, createGunzip(), bb) : pipeline(ctx.req, bb);
    done.catch((e: unknown) => fail(gone() ? disconnected() : importError(`the upload failed: ${(e as Error).message}`)));
  });
}

export function importRoutes(o: ImportRouteOptions): Route[] {
  return [{ endpoint: 'imp', paths: ['/imp'], methods: { POST: (ctx) => handleImport(ctx, o) } }];
}

