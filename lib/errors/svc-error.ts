// The one error type of svcdb: a code from the table below, the HTTP status the
// code implies, and for SQL the zero-based character position of the fault.
// lib/http/error-response.ts is the only place that turns it into a response.

/** Every error code with the HTTP status it maps to. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  /** A fault of the SQL text: the position points into it. */
  SQL: 400,
  /**
   * The request passed a configured limit of the server (a memory budget, the
   * import's column count or line length); the message names its key (`limit=`).
   */
  LIMIT: 400,
  /**
   * One value a function would build past cairo.sql.string.function.buffer.max.size:
   * QuestDB's SQL error at the call (answered as SQL), but a limit of the evaluation,
   * not a fault of the text (a bind-time evaluation leaves it to run time).
   */
  VALUE_LIMIT: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** The request head did not arrive in time. */
  REQUEST_TIMEOUT: 408,
  /** A part of the request the HTTP parser refuses for its size (chunk extensions). */
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  /** A statement that ran past its timeout: a failed query, as QuestDB answers it. */
  TIMEOUT: 400,
  /** A statement stopped by CANCEL QUERY or cancel_query() (QuestDB: `cancelled by user`). */
  CANCELLED: 400,
  TABLE_BUSY: 409,
  DISK_FULL: 507,
  CONFIG: 500,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface SvcErrorOptions {
  /** Zero-based offset in the SQL text (UTF-16 code units), for SQL errors. */
  position?: number;
  cause?: unknown;
  /** Response headers the condition requires (Allow for 405, WWW-Authenticate for 401). */
  headers?: Readonly<Record<string, string>>;
  /** Answered as a text/plain line instead of JSON (QuestDB's 404 and 405 of the HTTP layer). */
  plainText?: boolean;
}

export class SvcError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly position: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly plainText: boolean;

  constructor(code: ErrorCode, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.position = options.position;
    this.headers = options.headers ?? {};
    this.plainText = options.plainText ?? false;
  }
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}

/** QuestDB's SQL errors: a fault of the statement or a value past its per-value limit, placed in the SQL text. */
export function isSqlError(e: SvcError): boolean {
  return e.code === 'SQL' || e.code === 'VALUE_LIMIT';
}

/** A limit of the server or of the evaluation that the request ran into, rather than a fault of its input. */
export function isLimitError(e: unknown): e is SvcError {
  return isSvcError(e) && (e.code === 'LIMIT' || e.code === 'VALUE_LIMIT');
}

/** A readable message for anything thrown, without a stack. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
