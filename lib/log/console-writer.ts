// io.svc.log.LogConsoleWriter: lines to the console. The console is standard
// output plus log/stdout-<ts>.txt for an interactive run, or only
// log/service-<ts>.txt with `serve --service` (SPEC.md "Logging configuration" 1).
import type { FileSink } from './file-sink.js';
import type { LogRecord, LogWriter, WriterContext } from './log-writer.js';
import { Level } from './levels.js';
import { LineBuffer } from './line-buffer.js';

/** Where console lines go; shared by every console writer of a LogManager. */
export interface Console {
  readonly stream: NodeJS.WritableStream | null;
  readonly file: FileSink | null;
}

/** Standard outputs that failed (EPIPE: the reader went away), and those watched for it. */
const broken = new WeakSet<object>();
const watched = new WeakSet<object>();

export class ConsoleWriter implements LogWriter {
  readonly mask: number;
  readonly #console: Console;
  readonly #stdout: LineBuffer | null;

  constructor(ctx: WriterContext, console: Console) {
    for (const k of ctx.props.keys()) throw new Error(`unknown property w.${ctx.name}.${k} for LogConsoleWriter`);
    this.mask = ctx.mask;
    this.#console = console;
    const stream = console.stream;
    // A standard output that fails takes no more lines (the console file keeps them): unwatched, each
    // failed write is an uncaught exception, logged critical to the same closed output, without end.
    if (stream && !watched.has(stream)) {
      watched.add(stream);
      stream.on('error', () => broken.add(stream));
    }
    this.#stdout = stream
      ? new LineBuffer((chunk) => {
          if (!broken.has(stream)) stream.write(chunk);
        })
      : null;
  }

  write(record: LogRecord): void {
    const text = record.line + '\n';
    const urgent = record.level === Level.CRITICAL;
    this.#console.file?.write(text, urgent);
    // The byte count only bounds buffering, so the string length serves.
    this.#stdout?.add(text, text.length, urgent);
  }

  flush(): void {
    this.#stdout?.flush();
  }

  async close(): Promise<void> {
    this.flush();
  }
}
