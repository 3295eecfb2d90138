// The text of `svcdb --help`: every command and its options.
import { VERSION } from '../version.js';

export const HELP = `svcdb ${VERSION}: a time-series SQL database server (QuestDB dialect and HTTP API)

Usage:
  svcdb serve [-d <root>] [--service] [-Dout=<log.conf>] [-Debug]
  svcdb query "<sql>" [--host <url>] [--format table|csv|json] [--user <user:password>]
  svcdb shell [--host <host[:port]> | -d <root> [--create]] [-f <file.sql>] [--mode table|csv|json|line]
  svcdb import <file|-> [--table t] [--timestamp ts] [--partition-by DAY] [--delimiter ,]
               [--schema schema.json] [--atomicity skipCol|skipRow|abort] [--force-header]
               [--overwrite] [--skip-lev] [--format text|json] [-d <root>]
  svcdb export "<sql>" [-o <file>] [--format csv|json|jsonl|parquet] [--no-header]
               [--compression_codec zstd] [--<other /exp Parquet parameter> <value>] [-d <root>]
  svcdb --version
  svcdb --help

serve        Starts the server. REST API on port 9000, health server on 9003.
  -d <root>      Database root holding conf/, db/ and log/ (default ./svcdb-data).
                 conf/server.conf and conf/log.conf are created with defaults.
  --service      Service mode: console log lines go to log/service-<timestamp>.txt
                 instead of standard output.
  -Dout=<path>   Use this log.conf instead of <root>/conf/log.conf.
  -Debug         Debug logging on every writer (also SVC_DEBUG=true).

query        Runs one SQL statement on a running server and prints the result.
  --host <url>   Server address (default http://127.0.0.1:9000; host:port works too).
  --format f     table (aligned, the default), csv (as /exp writes it) or json (/exec's body).
  --user u:p     Basic authentication credentials (also SVCDB_AUTH=u:p).

shell        An interactive SQL shell (history, multi-line statements, \\d, \\timing, \\mode) on a
             server or directly on a database folder (-d); runs a script from -f or standard
             input. \`svcdb query\` without the SQL text is the shell; it takes -d and -f too.
             svcdb shell --help has the details.

import       Imports a CSV (or TAB/pipe/semicolon separated) file into a table of the
             database at -d <root> (default ./svcdb-data), with no server running on it:
             the same detection, conversion and rules as POST /imp. '-' reads standard
             input; .gz files are decompressed. A progress bar shows on a terminal.
  --table t      Target table (default: the file name without its extension).
  --schema f     A JSON file: [{"name": "ts", "type": "TIMESTAMP", "pattern": "yyyy-MM-dd HH:mm:ss"}, ...].
  Other options as the /imp parameters (timestamp, partitionBy, delimiter, atomicity,
  forceHeader, overwrite, skipLev); --format json prints /imp's fmt=json answer.

export       Runs a query on the database at -d <root> (default ./svcdb-data), with no server
             running on it, and writes the result as /exp and /exec write it: to standard
             output, or with -o into a file (a line on standard error then says how much).
  --format f     csv (default), json (/exec's document), jsonl (one object per row) or
                 parquet (needs -o); without it, an -o name ending in .parquet, .json or
                 .jsonl picks the format.
  --no-header    CSV without the header line.
  Parquet: the /exp parameters as options, e.g. --compression_codec snappy --row_group_size 50000.

Every server.conf key can be set by an environment variable: SVC_ + the key
upper-cased with dots as underscores (SVC_HTTP_NET_BIND_TO=127.0.0.1:9000).
`;
