// `svcdb serve`: the server on a root folder until SIGINT or SIGTERM (a second
// one exits at once); errors that escape every handler are counted, not fatal.
// The server itself comes from the caller (bin/svcdb.ts passes
// SvcdbServer.start), the composition root above this layer.
import { fail } from './fail.js';

/** What serve needs of a started server. */
export interface RunningServer {
  stop(reason?: string): Promise<void>;
  recordUnhandled(what: string, err: unknown): void;
  readonly logs: { flush(): void };
}

/** Starts the server (lib/server.ts's SvcdbServer.start). */
export type StartServer = (args: ServeArgs) => Promise<RunningServer>;

export interface ServeArgs {
  root: string;
  service: boolean;
  logConf: string | undefined;
  debug: boolean;
}

export function parseServe(args: string[]): ServeArgs {
  const out: ServeArgs = { root: './svcdb-data', service: false, logConf: undefined, debug: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-d' || a === '--root') {
      const v = args[++i];
      if (v === undefined || v === '') fail(`${a} needs a folder`);
      out.root = v;
    } else if (a.startsWith('-d=')) out.root = a.slice(3);
    else if (a === '--service') out.service = true;
    else if (a.startsWith('-Dout=')) {
      out.logConf = a.slice(6);
      if (out.logConf === '') fail('-Dout= needs a path');
    } else if (a === '-Debug' || a === '--debug') out.debug = true;
    else fail(`unknown option for serve: ${a} (see svcdb serve --help)`);
  }
  return out;
}

export async function serve(args: ServeArgs, start: StartServer): Promise<void> {
  let server: RunningServer;
  try {
    server = await start(args);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  // An error that escapes every handler is counted and logged; the server keeps serving.
  process.on('uncaughtException', (e) => server.recordUnhandled('exception', e));
  process.on('unhandledRejection', (e) => server.recordUnhandled('promise rejection', e));
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (++signals > 1) {
      process.stderr.write(`svcdb: ${sig} again, exiting now\n`);
      process.exit(1);
    }
    server.stop(`${sig} received`).then(
      () => process.exit(0),
      (e: unknown) => fail(`error while stopping: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Lines still buffered when the process exits for another reason are written out.
  process.on('exit', () => server.logs.flush());
}
