// io.svc.log.LogConsoleWriter: lines to the console. The console is standard
// output plus log/stdout-<ts>.txt for an interactive run, or only
// log/service-<ts>.txt with `serve --service` (SPEC.md "Logging configuration" 1).
import type { FileSink } from './file-sink.js';
import type { LogRecord, LogWriter, WriterContext } from './log-writer.js';
import { Level } from './levels.js';

/** Where console lines go; shared by every console writer of a LogManager. */
export interface Console {
  readonly stream: NodeJS.WritableStream | null;
  readonly file: FileSink | null;
}

export class ConsoleWriter implements LogWriter {
  readonly mask: number;
  readonly #console: Console;
  #pending: string[] = [];
  #scheduled = false;

  constructor(ctx: WriterContext, console: Console) {
    for (const k of ctx.props.keys()) throw new Error(`unknown property w.${ctx.name}.${k} for LogConsoleWriter`);
    this.mask = ctx.mask;
    this.#console = console;
  }

  write(record: LogRecord): void {
    const text = record.line + '\n';
    this.#console.file?.write(text, record.level === Level.CRITICAL);
    if (!this.#console.stream) return;
    this.#pending.push(text);
    if (record.level === Level.CRITICAL) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => { this.#scheduled = false; this.flush(); }).unref();
    }
  }

  flush(): void {
    if (this.#pending.length === 0 || !this.#console.stream) return;
    const chunk = this.#pending.join('');
    this.#pending = [];
    this.#console.stream.write(chunk);
  }

  async close(): Promise<void> {
    this.flush();
  }
}
