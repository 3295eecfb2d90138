#!/usr/bin/env node
// The svcdb command line's entry: argv to lib/cli (serve, query, import,
// export, --version, --help), with the server's composition root for `serve`.
import { runCli } from '../lib/cli/main.js';
import { SvcdbServer } from '../lib/server.js';

await runCli(process.argv.slice(2), { startServer: (args) => SvcdbServer.start(args) });
