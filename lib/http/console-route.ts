// The web console's files (dist/console/, built by `npm run build` from console/):
// `/` and `/index.html` answer its page, `/console/<file>` its scripts and styles
// (gzipped copies when the client takes them; hashed names cached for a year).
// Behind the main server's authentication like every other path.
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError } from '../errors/svc-error.js';
import type { RequestContext, Route } from './router.js';
import { acceptsGzip } from './stream-body.js';

/** Where the build puts the console: dist/console/ beside dist/lib/. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Files whose name carries a content hash (app-3FQ2XK7A.js) never change: cached for a year. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;

export interface ConsoleRouteOptions {
  /** The built console's folder; default CONSOLE_DIR. */
  readonly dir?: string;
}

export function consoleRoutes(opts: ConsoleRouteOptions = {}): Route[] {
  const dir = resolve(opts.dir ?? CONSOLE_DIR);
  const page = (ctx: RequestContext): Promise<void> => sendFile(ctx, dir, 'index.html', true);
  const asset = (ctx: RequestContext): Promise<void> => {
    const rel = assetPath(ctx.url.pathname.slice('/console/'.length));
    return sendFile(ctx, dir, rel, false);
  };
  return [
    { endpoint: 'console', paths: ['/', '/index.html'], methods: { GET: page, HEAD: page } },
    { endpoint: 'console', paths: [], prefixes: ['/console/'], methods: { GET: asset, HEAD: asset } },
  ];
}

/** The file's path under the console folder; anything that could leave it is not found. */
function assetPath(raw: string): string {
  let rel: string;
  try {
    rel = decodeURIComponent(raw);
  } catch {
    throw new SvcError('NOT_FOUND', 'Not Found', { plainText: true });
  }
  const parts = rel.split('/');
  if (rel === '' || rel.includes('\0') || rel.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new SvcError('NOT_FOUND', 'Not Found', { plainText: true });
  return parts.join(sep);
}

async function sendFile(ctx: RequestContext, dir: string, rel: string, isPage: boolean): Promise<void> {
  const file = join(dir, rel);
  if (!file.startsWith(dir + sep)) throw new SvcError('NOT_FOUND', 'Not Found', { plainText: true });
  let info;
  try {
    info = await stat(file);
  } catch {
    info = null;
  }
  if (!info?.isFile()) {
    if (isPage) return notBuilt(ctx, dir);
    throw new SvcError('NOT_FOUND', 'Not Found', { plainText: true });
  }
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string> = {
    'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Cache-Control': HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
  };
  if (ctx.req.headers['if-none-match'] === etag) {
    ctx.res.writeHead(304, headers);
    ctx.res.end();
    return;
  }
  // The build writes a gzip copy (app-<hash>.js.gz) of the large files beside them.
  let body: Buffer | null = null;
  if (/\.(js|css)$/.test(file)) {
    headers.Vary = 'Accept-Encoding';
    if (acceptsGzip(ctx.req)) {
      body = await readFile(`${file}.gz`).catch(() => null);
      if (body) headers['Content-Encoding'] = 'gzip';
    }
  }
  body ??= await readFile(file);
  ctx.res.writeHead(200, { ...headers, 'Content-Length': body.length });
  if (ctx.req.method === 'HEAD') ctx.res.end();
  else {
    ctx.res.end(body);
    ctx.stats.bytes += body.length;
  }
}

/** A server started without the built console says so at `/` (the REST API works all the same). */
function notBuilt(ctx: RequestContext, dir: string): void {
  const text =
    '<!doctype html><meta charset="utf-8"><title>svcdb: web console not built</title>' +
    '<h1>The web console is not built</h1>' +
    `<p>svcdb found no <code>${escapeHtml(join(dir, 'index.html'))}</code>. ` +
    'Build it with <code>npm run build</code> in the svcdb folder and reload this page.</p>' +
    '<p>The HTTP API works without it, e.g. <code>/exec?query=select%201</code>.</p>';
  const body = Buffer.from(text, 'utf8');
  ctx.res.writeHead(404, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': body.length,
    'Cache-Control': 'no-cache',
  });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
