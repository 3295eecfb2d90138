#!/usr/bin/env node
// The svcdb command line's entry: argv to lib/cli (serve, query, import,
// export, --version, --help), with the server's composition root for `serve`.
// An error no command handled is one line, `svcdb: <message>`, exit code 1
// (its stack only with SVC_DEBUG=true).
import { runCli } from '../lib/cli/main.js';
import { SvcdbServer } from '../lib/server.js';

try {
  await runCli(process.argv.slice(2), { startServer: (args) => SvcdbServer.start(args) });
} catch (e) {
  const debug = process.env.SVC_DEBUG === 'true';
  process.stderr.write(
    `svcdb: ${debug && e instanceof Error ? e.stack : e instanceof Error ? e.message : String(e)}\n`,
  );
  process.exitCode = 1;
}
