// The texts of `svcdb --help` and `svcdb <command> --help` (or -h): one entry
// per command in COMMAND_HELP (usage, options, examples); the top-level text
// lists the commands and points to them.
import { VERSION } from '../version.js';

const SERVE = `Usage: svcdb serve [-d <root>] [--service] [-Dout=<log.conf>] [-Debug]

Starts the server: the REST API on port 9000, the health server (status,
metrics) on 9003. Ctrl-C or SIGTERM stops it; in-flight requests finish.

Options:
  -d <root>      Database root holding conf/, db/ and log/ (default ./svcdb-data),
                 made on first start with conf/server.conf and conf/log.conf.
  --service      Service mode: console log lines go to log/service-<timestamp>.txt
                 instead of standard output.
  -Dout=<path>   Use this log.conf instead of <root>/conf/log.conf.
  -Debug         Debug logging on every writer (also SVC_DEBUG=true).
  -h, --help     This text.

Every server.conf key can be set by an environment variable: SVC_ + the key
upper-cased with dots as underscores.

Examples:
  svcdb serve
  svcdb serve -d /var/lib/svcdb --service
  SVC_HTTP_NET_BIND_TO=0.0.0.0:9100 svcdb serve -d ./data
`;

const QUERY = `Usage: svcdb query "<sql>" [--host <host[:port]> | -d <root>] [--format table|csv|json|line]
                   [--user <user:password>] [--max-rows <n>]
       svcdb query [-f <file.sql>]    (no SQL text: the shell, see svcdb shell --help)

Runs SQL on a running server (--host) or on a database folder no server is
running on (-d) and prints the result: every row of it, unless --max-rows.
Without the SQL text it runs a file (-f) or standard input, or, on a terminal,
opens the interactive shell.

Options:
  --host h[:p]   The server's REST API: host, host:port or a URL (default 127.0.0.1:9000;
                 port 9000 when none is given).
  -d <root>      A database folder, opened in this process; refused while a server holds it.
  --format f     table (aligned, the default), csv (as /exp writes it), json (/exec's body)
                 or line (one column = value a line); also --mode.
  --user u:p     Basic authentication credentials (also SVCDB_AUTH=u:p).
  --max-rows n   Table format: rows shown at most, the first and the last half (default: all).
  -f <file>      Run the statements of a file.
  -h, --help     This text.

Examples:
  svcdb query "select * from trades limit 10"
  svcdb query "select ts, avg(price) from trades sample by 1h" --host db1 --format csv
  svcdb query -d ./svcdb-data "select count() from trades"
`;

const IMPORT = `Usage: svcdb import <file|-> [--table t] [--timestamp ts] [--partition-by DAY] [options]
                    [-d <root>]

Imports a CSV (or TAB, pipe or semicolon separated) file into a table of the
database folder at -d <root> (default ./svcdb-data), with no server running on
it: the same detection, conversion and rules as POST /imp. '-' reads standard
input; .gz files are decompressed. On a terminal a progress line shows rows,
bytes and speed. Values that do not convert are reported with their line,
column and reason; when no row was imported, the command fails (exit 1) and
leaves no new table behind.

Options:
  --table t          Target table (default: the file name without its extension).
  --timestamp c      The designated timestamp column.
  --partition-by p   NONE, HOUR, DAY, WEEK, MONTH or YEAR (needs --timestamp).
  --delimiter d      One character, or tab (default: detected).
  --schema f         A JSON file of column types and timestamp patterns, e.g.
                     [{"name": "ts", "type": "TIMESTAMP",
                       "pattern": "yyyy-MM-dd HH:mm:ss"}, {"name": "v", "type": "DOUBLE"}]
  --atomicity a      skipCol (a bad value becomes NULL, the default), skipRow (its row is
                     rejected) or abort (the import stops, nothing imported).
  --rejects f        Write every rejected row and every value stored as NULL to this CSV file:
                     line, column, value, reason, action (rejected or null), the line's text.
  --force-header     The first line is a header even when it looks like data.
  --overwrite        Replace the table if it exists.
  --skip-lev         Keep lines with extra values (the extra values are dropped).
  --no-create        Import only into an existing table.
  --create           Make the database at -d when the folder does not hold one (the default
                     folder ./svcdb-data is made without it).
  --format f         The report as text (/imp's table, the default) or json.
  -d <root>          The database folder (default ./svcdb-data).
  -h, --help         This text.

Examples:
  svcdb import trades.csv --timestamp ts --partition-by DAY
  gunzip -c trades.csv.gz | svcdb import - --table trades --rejects rejected.csv
  svcdb import sensors.csv --schema schema.json -d ./data --create
`;

const EXPORT = `Usage: svcdb export "<sql>" [-o <file>] [--format csv|json|jsonl|parquet] [--no-header] [-d <root>]
       svcdb export "<sql>" --host <host[:port]> [-o <file>] [--format csv|parquet] [--user <user:password>]

Runs a query on the database folder at -d <root> (default ./svcdb-data), with no
server running on it, and writes the result as /exp and /exec write it: to
standard output, or with -o into a file (a line on standard error then says how
much). The folder must hold a database; nothing is created. With --host, a
running server exports it instead (its /exp: CSV or Parquet), so nothing has to
be stopped.

Options:
  -o <file>      Write into this file (its extension .parquet, .json or .jsonl picks the
                 format when --format is not given).
  --format f     csv (default), json (/exec's document), jsonl (one object per row) or
                 parquet (needs -o).
  --no-header    CSV without the header line.
  --<param> v    Parquet: the /exp parameters, e.g. --compression_codec zstd
                 --row_group_size 50000.
  -d <root>      The database folder (default ./svcdb-data).
  --host h[:p]   A running server's REST API instead (port 9000 when none is given).
  --user u:p     With --host: basic authentication credentials (also SVCDB_AUTH=u:p).
  -h, --help     This text.

Examples:
  svcdb export "select * from trades" -o trades.csv
  svcdb export "select * from trades" --host localhost -o trades.parquet
  svcdb export "select * from trades where ts in '2024-01'" -o jan.parquet --compression_codec zstd
  svcdb export "select sym, count() from trades" --format jsonl | head
`;

/** `svcdb shell --help` (the shell prints it too). */
export const SHELL_HELP = `Usage: svcdb shell [--host <host[:port]> | -d <root> [--create]] [-f <file.sql> | -c "<sql>"]
                   [--mode table|csv|json|line] [--max-rows <n>] [--user <user:password>] [--bail]

An interactive SQL shell on a running server (--host, default 127.0.0.1:9000) or
directly on a database folder no server is running on (-d). Statements end with ;
and may span lines. On a terminal: line editing and history (~/.svcdb_history,
or SVCDB_HISTORY=<file>). A script (-f, -c, or standard input that is not a
terminal) runs to its end; the exit code is 1 when any statement failed.

Options:
  --host h[:port]   The server's REST API (default 127.0.0.1:9000; port 9000 when none is given).
  --user u:p        Basic authentication credentials (also SVCDB_AUTH=u:p).
  -d <root>         A database folder, opened in this process; refused while a server holds it.
  --create          With -d: make the database when the folder holds none.
  -f <file>         Run the statements of a file.
  -c "<sql>"        Run these statements (also: the SQL as the last argument).
  --mode m          table (default), csv (as /exp writes it), json (/exec's document), line.
  --max-rows n      Table mode: rows shown at most, the first and the last half (default 40; 0: all).
  --bail            Stop a script at its first failed statement.

  -h, --help        This text.

Commands in the shell (\\? lists them): \\d, \\d <table>, \\dt, \\mode, \\timing, \\maxrows, \\nullvalue, \\q.

Examples:
  svcdb shell
  svcdb shell -d ./svcdb-data
  svcdb shell --host db1:9000 -f report.sql --mode csv > report.csv
  echo "select count() from trades;" | svcdb shell -d ./svcdb-data
`;

/** `svcdb <command> --help`, by command. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: SERVE,
  query: QUERY,
  shell: SHELL_HELP,
  import: IMPORT,
  export: EXPORT,
};

export const HELP = `svcdb ${VERSION}: a time-series SQL database server (QuestDB dialect and HTTP API)

Usage:
  svcdb serve [-d <root>]                 Start the server: REST API on 9000, health on 9003.
  svcdb query "<sql>" [--host <h[:p]>]    Run SQL on a running server (or -d <root>: a folder).
  svcdb shell [--host <h[:p]> | -d <root>]
                                          An interactive SQL shell (history, \\d, \\timing, modes).
  svcdb import <file|-> [-d <root>]       Import a CSV file into a database folder.
  svcdb export "<sql>" [-o <file>]        Export a query of a database folder (CSV, JSON, Parquet).
  svcdb <command> --help                  The command's options and examples (also -h).
  svcdb --version

Every server.conf key can be set by an environment variable: SVC_ + the key
upper-cased with dots as underscores (SVC_HTTP_NET_BIND_TO=127.0.0.1:9000).
`;

/** Whether the arguments ask for help (`--help` or `-h` anywhere). */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
