// What the shell does with one statement or one backslash command: runs it on
// its source, prints the answer in the output mode, reports errors with a
// caret under their position, and keeps the settings (\mode, \timing, ...).
// Reading input (a terminal, a file, standard input) is shell-cli.ts's part.
import type { Writable } from 'node:stream';
import { ExecFormatError, type ExecSummary } from './exec-scanner.js';
import { OUTPUT_MODES, printDocument, put, type OutputMode } from './result-printer.js';
import { SourceError, StatementError, type Source } from './sources.js';

export interface SessionSettings {
  mode: OutputMode;
  timing: boolean;
  /** Table mode: rows shown at most (0: all). */
  maxRows: number;
  nullText: string;
}

export interface SessionIO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** The output's width for tables (a terminal's columns), read at each statement; null: no limit. */
  readonly width: () => number | null;
  /** Whether NULL may be drawn dim. */
  readonly color: boolean;
}

/** Where a statement came from, for error messages: a script's name and the line its text starts at. */
export interface Origin {
  readonly name: string;
  readonly line: number;
}

export const HELP_TEXT = `Statements end with ; and may span lines. Commands:
  \\d              tables, views and materialized views: kind, partitioning, row count
  \\d <name>       the columns of a table or view: name, type, indexed, designated timestamp
  \\dt             tables only
  \\mode [m]       output mode: table (default), csv (as /exp), json (as /exec), line
  \\timing [on|off] print each statement's time (the server's or the engine's, and the total)
  \\maxrows [n]    table mode: rows shown at most, the first and the last half (0: all)
  \\nullvalue [s]  how NULL shows in table and line mode (default NULL)
  \\? or \\help     this help
  \\q              quit (also exit, quit, Ctrl-D)
`;

function ms(nanos: number): string {
  return `${(nanos / 1e6).toFixed(3)} ms`;
}

export class ShellSession {
  readonly #source: Source;
  readonly #io: SessionIO;
  readonly settings: SessionSettings;
  /** Statements and commands that failed. */
  errors = 0;

  constructor(source: Source, io: SessionIO, settings: SessionSettings) {
    this.#source = source;
    this.#io = io;
    this.settings = settings;
  }

  /** Runs one statement (its text without the `;`); true when it succeeded. SourceErrors propagate. */
  async statement(sql: string, signal: AbortSignal, origin?: Origin, command?: string): Promise<boolean> {
    const started = process.hrtime.bigint();
    const s = this.settings;
    try {
      let summary: ExecSummary | null = null;
      if (s.mode === 'csv') {
        const csv = await this.#source.csv(sql, { signal, timings: false });
        if (csv !== null) {
          for await (const chunk of csv) await put(this.#io.stdout, chunk);
        } else summary = await this.#print(sql, signal);
      } else summary = await this.#print(sql, signal);
      if (summary !== null) {
        const m = summary.members;
        if (typeof m.error === 'string') {
          throw new StatementError(m.error, typeof m.errorPos === 'number' ? m.errorPos : undefined);
        }
        if (summary.columns === null && s.mode !== 'json') {
          await put(this.#io.stdout, m.updated !== undefined ? `OK (${String(m.updated)} rows updated)\n` : 'OK\n');
        }
      }
      if (s.timing) await this.#timing(summary, started);
      return true;
    } catch (e) {
      if (signal.aborted) {
        this.errors++;
        await put(this.#io.stderr, 'svcdb: cancelled\n');
        return false;
      }
      if (e instanceof StatementError) {
        this.errors++;
        // A backslash command's own SQL is not the user's: its error alone.
        if (command !== undefined) await put(this.#io.stderr, `svcdb: ${command}: ${e.message}\n`);
        else await this.#reportSql(sql, e, origin);
        return false;
      }
      if (e instanceof ExecFormatError)
        throw new SourceError(`${e.message} (is that svcdb's REST API port, 9000 by default?)`);
      throw e;
    }
  }

  async #print(sql: string, signal: AbortSignal): Promise<ExecSummary> {
    const s = this.settings;
    const body = await this.#source.exec(sql, { signal, timings: s.timing });
    const width = this.#io.width();
    return printDocument(body, s.mode === 'csv' ? 'table' : s.mode, this.#io.stdout, {
      maxRows: s.maxRows,
      width,
      nullText: s.nullText,
      color: this.#io.color,
    });
  }

  async #timing(summary: ExecSummary | null, started: bigint): Promise<void> {
    const total = Number(process.hrtime.bigint() - started);
    const t = summary?.members.timings as { compiler?: unknown; execute?: unknown } | undefined;
    let detail = '';
    if (t !== undefined && typeof t.compiler === 'number' && typeof t.execute === 'number')
      detail = ` (server: compile ${ms(t.compiler)}, execute ${ms(t.execute)})`;
    else {
      const e = this.#source.lastTime();
      if (e !== null) detail = ` (engine: compile ${ms(e.compileNanos)}, execute ${ms(e.executeNanos)})`;
    }
    // Beside CSV and JSON, which programs read, the time goes to standard error.
    const out = this.settings.mode === 'csv' || this.settings.mode === 'json' ? this.#io.stderr : this.#io.stdout;
    await put(out, `Time: ${ms(total)}${detail}\n`);
  }

  /** The statement's line holding the error, a caret under it, and the message with where it is. */
  async #reportSql(sql: string, e: StatementError, origin: Origin | undefined): Promise<void> {
    const where: string[] = [];
    let text = '';
    if (e.position !== undefined && e.position >= 0 && e.position <= sql.length) {
      const before = sql.slice(0, e.position);
      const lineNo = before.split('\n').length;
      const lineStart = before.lastIndexOf('\n') + 1;
      const lineEnd = sql.indexOf('\n', e.position);
      const line = sql.slice(lineStart, lineEnd < 0 ? sql.length : lineEnd).replace(/\t/g, ' ');
      const col = e.position - lineStart;
      text = `${line}\n${' '.repeat(col)}^\n`;
      if (origin !== undefined) where.push(`${origin.name}:${origin.line + lineNo - 1}`);
      else if (sql.includes('\n')) where.push(`line ${lineNo}`);
      where.push(`position=${e.position}`);
    } else if (origin !== undefined) where.push(`${origin.name}:${origin.line}`);
    await put(this.#io.stderr, `${text}svcdb: ${e.message}${where.length > 0 ? ` [${where.join(', ')}]` : ''}\n`);
  }

  /** Runs a backslash command; 'quit' for \q. */
  async command(line: string, signal: AbortSignal): Promise<'quit' | void> {
    const [name = '', ...args] = line.trim().split(/\s+/);
    const arg = args.join(' ');
    const s = this.settings;
    const say = (text: string): Promise<void> => put(this.#io.stdout, text);
    switch (name) {
      case '\\q':
      case '\\quit':
        return 'quit';
      case '\\?':
      case '\\h':
      case '\\help':
        return say(HELP_TEXT);
      case '\\timing':
        if (arg === '') s.timing = !s.timing;
        else if (arg === 'on' || arg === 'off') s.timing = arg === 'on';
        else return this.#usage('\\timing takes on or off');
        return say(`Timing is ${s.timing ? 'on' : 'off'}.\n`);
      case '\\mode':
        if (arg === '') return say(`Output mode: ${s.mode}\n`);
        if (!(OUTPUT_MODES as readonly string[]).includes(arg))
          return this.#usage(`\\mode takes ${OUTPUT_MODES.join(', ')} [got ${arg}]`);
        s.mode = arg as OutputMode;
        return;
      case '\\maxrows':
        if (arg === '') return say(`Rows shown at most: ${s.maxRows === 0 ? 'all' : s.maxRows}\n`);
        if (!/^\d+$/.test(arg)) return this.#usage(`\\maxrows takes a number of rows (0: all) [got ${arg}]`);
        s.maxRows = Number(arg);
        return;
      case '\\nullvalue':
        s.nullText = arg === '' ? 'NULL' : arg;
        return;
      case '\\d':
      case '\\dt':
        if (arg !== '') {
          await this.statement(
            `select "column", type, indexed, designated from table_columns('${arg.replace(/'/g, "''")}')`,
            signal,
            undefined,
            `${name} ${arg}`,
          );
          return;
        }
        await this.statement(
          "select table_name name, case table_type when 'M' then 'materialized view' when 'V' then 'view' " +
            "else 'table' end kind, table_row_count row_count, partitionBy partition_by, " +
            'designatedTimestamp designated_timestamp, walEnabled wal from tables()' +
            (name === '\\dt' ? " where table_type = 'T'" : '') +
            ' order by name',
          signal,
          undefined,
          name,
        );
        return;
      default:
        return this.#usage(`unknown command ${name} (\\? lists the commands)`);
    }
  }

  async #usage(message: string): Promise<void> {
    this.errors++;
    await put(this.#io.stderr, `svcdb: ${message}\n`);
  }
}
