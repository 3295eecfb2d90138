// The logging system: bunyan as the front end (one child logger per name, our
// levels mapped onto bunyan's), one raw bunyan stream that routes each record
// to the log.conf writers of the logger's scope.
import bunyan from 'bunyan';
import { join } from 'node:path';
import type { Metrics } from '../metrics/metrics.js';
import { nowMicros, formatDatePattern } from './clock.js';
import { ConsoleWriter, type Console } from './console-writer.js';
import { FileSink } from './file-sink.js';
import { FileWriter, RollingFileWriter } from './file-writer.js';
import { AlertSocketWriter } from './alert-socket-writer.js';
import { DEFAULT_MASK, Level, fromBunyan, parseLevelList, type LevelBit } from './levels.js';
import { formatLine, oneLine } from './line-format.js';
import type { LogConfSource } from './log-conf.js';
import type { LogRecord, LogWriter, WriterContext } from './log-writer.js';

type WriterFactory = (ctx: WriterContext, console: Console) => LogWriter;

const WRITER_CLASSES: Record<string, WriterFactory> = {
  'io.svc.log.LogConsoleWriter': (ctx, console) => new ConsoleWriter(ctx, console),
  'io.svc.log.LogFileWriter': (ctx) => new FileWriter(ctx),
  'io.svc.log.LogRollingFileWriter': (ctx) => new RollingFileWriter(ctx),
  'io.svc.log.LogAlertSocketWriter': (ctx) => new AlertSocketWriter(ctx),
};

export interface LogManagerOptions {
  readonly root: string;
  readonly conf: LogConfSource;
  /** -Debug or SVC_DEBUG=true: DEBUG is added to every writer's levels. */
  readonly debug: boolean;
  /** `serve --service`: console lines go to log/service-<ts>.txt only. */
  readonly service: boolean;
  /** Standard output for an interactive run; null for none (library use). */
  readonly stdout: NodeJS.WritableStream | null;
  /** Whether console lines are also kept in log/stdout-<ts>.txt (interactive runs). */
  readonly consoleFile: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
  readonly metrics: Metrics;
  readonly now?: () => number;
}

interface ScopedWriters {
  readonly scope: string;
  readonly writers: LogWriter[];
}

export class LogManager {
  readonly logDir: string;
  /** The file that receives console lines, if any. */
  readonly consoleFilePath: string | null;
  readonly #scopes: ScopedWriters[];
  readonly #routes = new Map<string, LogWriter[]>();
  readonly #bunyan: bunyan;
  readonly #console: Console;
  readonly #all: LogWriter[] = [];
  #closed = false;

  constructor(opts: LogManagerOptions) {
    this.logDir = join(opts.root, 'log');
    const now = opts.now ?? nowMicros;
    let consoleSink: FileSink | null = null;
    if (opts.service || opts.consoleFile) {
      const stamp = formatDatePattern('yyyy-MM-ddTHH-mm-ss', now());
      consoleSink = new FileSink(join(this.logDir, `${opts.service ? 'service' : 'stdout'}-${stamp}.txt`));
    }
    this.consoleFilePath = consoleSink?.path ?? null;
    this.#console = { stream: opts.service ? null : opts.stdout, file: consoleSink };

    const byScope = new Map<string, LogWriter[]>();
    const v = opts.conf.values;
    const names = (v.get('writers') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      for (const name of names) {
        const prefix = `w.${name}.`;
        const cls = v.get(prefix + 'class');
        if (cls === undefined) throw new Error(`writer ${name} has no w.${name}.class`);
        const factory = WRITER_CLASSES[cls.trim()];
        if (!factory) {
          throw new Error(`unknown class w.${name}.class=${cls} (known: ${Object.keys(WRITER_CLASSES).join(', ')})`);
        }
        let mask = DEFAULT_MASK;
        const levelText = v.get(prefix + 'level');
        if (levelText !== undefined) {
          try {
            mask = parseLevelList(levelText);
          } catch (e) {
            throw new Error(`invalid value w.${name}.level=${levelText}: ${(e as Error).message}`, { cause: e });
          }
        }
        if (opts.debug) mask |= Level.DEBUG;
        const props = new Map<string, string>();
        for (const [k, val] of v) {
          if (!k.startsWith(prefix)) continue;
          const p = k.slice(prefix.length);
          if (p !== 'class' && p !== 'level' && p !== 'scope') props.set(p, val);
        }
        // Assigned once, after ctx: its report() closure reads it, and a writer may report while it is made.
        // eslint-disable-next-line prefer-const
        let writer: LogWriter | undefined;
        const ctx: WriterContext = {
          name,
          mask,
          props,
          root: opts.root,
          logDir: this.logDir,
          env: opts.env,
          version: opts.version,
          metrics: opts.metrics,
          now,
          report: (level, message) =>
            this.#report(writer, level === 'error' ? Level.ERROR : Level.INFO, `log-writer-${name}`, message),
        };
        writer = factory(ctx, this.#console);
        this.#all.push(writer);
        const scope = (v.get(prefix + 'scope') ?? '').trim();
        const list = byScope.get(scope) ?? [];
        list.push(writer);
        byScope.set(scope, list);
      }
    } catch (e) {
      for (const w of this.#all) void w.close();
      consoleSink?.close();
      throw new Error(`log configuration ${opts.conf.path}: ${(e as Error).message}`, { cause: e });
    }
    // Longest scope first, so the first prefix match is the most specific.
    this.#scopes = [...byScope]
      .map(([scope, writers]) => ({ scope, writers }))
      .sort((a, b) => b.scope.length - a.scope.length);

    this.#bunyan = bunyan.createLogger({
      name: 'svcdb',
      level: opts.debug ? 'debug' : 'info',
      streams: [
        {
          type: 'raw',
          level: opts.debug ? 'debug' : 'info',
          stream: { write: (r: unknown) => this.#onRecord(r as BunyanRecord) },
        },
      ],
    });
  }

  /** A named logger; its writers are those of the longest scope its name starts with. */
  logger(name: string): Logger {
    return new Logger(name, this.#bunyan.child({ logger: name }, true), this.#maskOf(name));
  }

  flush(): void {
    for (const w of this.#all) w.flush();
    this.#console.file?.flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(this.#all.map((w) => w.close()));
    this.#console.file?.close();
  }

  #writersOf(name: string): LogWriter[] {
    let ws = this.#routes.get(name);
    if (!ws) {
      ws = this.#scopes.find((s) => name.startsWith(s.scope))?.writers ?? [];
      this.#routes.set(name, ws);
    }
    return ws;
  }

  #maskOf(name: string): number {
    return this.#writersOf(name).reduce((m, w) => m | w.mask, 0);
  }

  #onRecord(r: BunyanRecord): void {
    if (this.#closed) return;
    const level = fromBunyan(r.level);
    const micros = typeof r.us === 'number' ? r.us : r.time.getTime() * 1000;
    this.#dispatch(micros, level, r.logger ?? 'svcdb', r.msg, undefined);
  }

  #dispatch(micros: number, level: LevelBit, logger: string, msg: string, exclude: LogWriter | undefined): void {
    const message = oneLine(msg);
    const record: LogRecord = { micros, level, logger, message, line: formatLine(micros, level, logger, message) };
    for (const w of this.#writersOf(logger)) {
      if (w !== exclude && (w.mask & level) !== 0) w.write(record);
    }
  }

  /** A writer's own problem, sent to every writer of its scope except itself (no loops). */
  #report(self: LogWriter | undefined, level: LevelBit, logger: string, message: string): void {
    if (!this.#closed) this.#dispatch(nowMicros(), level, logger, message, self);
  }
}

interface BunyanRecord {
  level: number;
  msg: string;
  time: Date;
  logger?: string;
  us?: number;
}

/** A named logger with the five levels of SPEC.md. Messages are kept to one line. */
export class Logger {
  readonly name: string;
  readonly #b: bunyan;
  readonly #mask: number;

  constructor(name: string, b: bunyan, mask: number) {
    this.name = name;
    this.#b = b;
    this.#mask = mask;
  }

  get debugEnabled(): boolean {
    return (this.#mask & Level.DEBUG) !== 0;
  }

  advisory(msg: string): void {
    this.#log(Level.ADVISORY, msg);
  }
  critical(msg: string, err?: unknown): void {
    this.#log(Level.CRITICAL, withError(msg, err));
  }
  error(msg: string, err?: unknown): void {
    this.#log(Level.ERROR, withError(msg, err));
  }
  info(msg: string): void {
    this.#log(Level.INFO, msg);
  }
  debug(msg: string): void {
    this.#log(Level.DEBUG, msg);
  }

  #log(level: LevelBit, msg: string): void {
    if ((this.#mask & level) === 0) return;
    const fields = { us: nowMicros() };
    // '%s' keeps bunyan's printf-style formatting away from the message text.
    switch (level) {
      case Level.DEBUG:
        this.#b.debug(fields, '%s', msg);
        break;
      case Level.INFO:
        this.#b.info(fields, '%s', msg);
        break;
      case Level.ADVISORY:
        this.#b.warn(fields, '%s', msg);
        break;
      case Level.ERROR:
        this.#b.error(fields, '%s', msg);
        break;
      case Level.CRITICAL:
        this.#b.fatal(fields, '%s', msg);
        break;
    }
  }
}

function withError(msg: string, err: unknown): string {
  if (err === undefined) return msg;
  if (err instanceof Error) return `${msg}: ${err.stack ?? err.message}`;
  return `${msg}: ${String(err)}`;
}
