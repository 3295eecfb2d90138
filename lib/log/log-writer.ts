// The contract between the log front end and the writers of log.conf.
import type { Metrics } from '../metrics/metrics.js';

/** One log message, already accepted by the logger's level filter. */
export interface LogRecord {
  /** Epoch microseconds. */
  readonly micros: number;
  /** One bit of Level. */
  readonly level: number;
  readonly logger: string;
  /** One line: newlines already escaped. */
  readonly message: string;
  /** The formatted line `<ts> <marker> <logger> <message>`, without the newline. */
  readonly line: string;
}

/** A log.conf writer. `write` must never throw and never block on the network. */
export interface LogWriter {
  /** The set of levels this writer takes (bit set of Level). */
  readonly mask: number;
  write(record: LogRecord): void;
  /** Pushes buffered lines to their destination synchronously where possible. */
  flush(): void;
  /** Flushes and releases files and sockets; waits for pending deliveries up to a bound. */
  close(): Promise<void>;
}

/** What a writer class gets when it is built from log.conf. */
export interface WriterContext {
  /** Writer name from `writers` (e.g. `file`, `alert`). */
  readonly name: string;
  readonly mask: number;
  /** Every `w.<name>.<prop>` except class, level and scope; `${...}` already substituted where the class wants it. */
  readonly props: ReadonlyMap<string, string>;
  /** The database root (`-d`); relative locations resolve against it. */
  readonly root: string;
  /** `<root>/log`. */
  readonly logDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
  /** Clock in epoch microseconds; tests inject one to drive time-based rolling. */
  readonly now?: () => number;
  /** Where delivery counters go (svc_alerts_*). */
  readonly metrics: Metrics;
  /** Logs the writer's own problems (must not be a path back into the same writer). */
  readonly report: (level: 'error' | 'info', message: string) => void;
}
