// GET /chk?j=<table>: QuestDB's table-exists check, which its REST clients
// call before an import. Text by default ("Exists" or "Does not exist", CRLF
// ended, as QuestDB sends it), {"status": ...} with f=json; without `j` the
// answer is "table name missing" (200, as QuestDB answers it).
import type { Database } from '../db/database.js';
import type { RequestContext, Route } from './router.js';

export interface ChkRouteOptions {
  readonly database: () => Database;
}

function handleChk(ctx: RequestContext, o: ChkRouteOptions): void {
  const params = ctx.url.searchParams;
  const name = params.get('j');
  let status: string;
  if (name === null) status = 'table name missing';
  else {
    let exists: boolean;
    try {
      exists = o.database().tableExists(name);
    } catch {
      exists = false;
    } // storage not open: nothing exists
    status = exists ? 'Exists' : 'Does not exist';
  }
  const json = name !== null && (params.get('f') ?? '').toLowerCase() === 'json';
  const body = json ? JSON.stringify({ status }) : `${status}\r\n`;
  ctx.stats.bytes += Buffer.byteLength(body);
  ctx.res.writeHead(200, {
    'Content-Type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  ctx.res.end(body);
}

export function chkRoutes(o: ChkRouteOptions): Route[] {
  return [{ endpoint: 'chk', paths: ['/chk'], methods: { GET: (ctx) => handleChk(ctx, o) } }];
}
