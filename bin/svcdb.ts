#!/usr/bin/env node
// The svcdb command line: `serve` runs the server; later capabilities add
// `import`, `query` and `export`. Thin: parses arguments and calls lib/.
import { SvcdbServer } from '../lib/server.js';
import { VERSION } from '../lib/version.js';

const HELP = `svcdb ${VERSION}: a time-series SQL database server (QuestDB dialect and HTTP API)

Usage:
  svcdb serve [-d <root>] [--service] [-Dout=<log.conf>] [-Debug]
  svcdb --version
  svcdb --help

serve        Starts the server. REST API on port 9000, health server on 9003.
  -d <root>      Database root holding conf/, db/ and log/ (default ./svcdb-data).
                 conf/server.conf and conf/log.conf are created with defaults.
  --service      Service mode: console log lines go to log/service-<timestamp>.txt
                 instead of standard output.
  -Dout=<path>   Use this log.conf instead of <root>/conf/log.conf.
  -Debug         Debug logging on every writer (also SVC_DEBUG=true).

Every server.conf key can be set by an environment variable: SVC_ + the key
upper-cased with dots as underscores (SVC_HTTP_NET_BIND_TO=127.0.0.1:9000).
`;

interface ServeArgs {
  root: string;
  service: boolean;
  logConf: string | undefined;
  debug: boolean;
}

function fail(message: string): never {
  process.stderr.write(`svcdb: ${message}\n`);
  process.exit(1);
}

function parseServe(args: string[]): ServeArgs {
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
    else fail(`unknown argument for serve: ${a} (see svcdb --help)`);
  }
  return out;
}

async function serve(args: ServeArgs): Promise<void> {
  let server: SvcdbServer;
  try {
    server = await SvcdbServer.start(args);
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

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case '--version': case '-v': case 'version':
      process.stdout.write(`svcdb ${VERSION}\n`);
      return;
    case undefined: case '--help': case '-h': case 'help':
      process.stdout.write(HELP);
      return;
    case 'serve':
      return serve(parseServe(rest));
    default:
      fail(`unknown command ${cmd} (see svcdb --help)`);
  }
}

await main(process.argv.slice(2));
