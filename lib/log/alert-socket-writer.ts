// The log.conf writer io.svc.log.LogAlertSocketWriter (SPEC.md "Events"): turns each
// critical record into an alert and POSTs it, one at a time, as raw HTTP/1.1 over
// node:net to the first reachable alert manager target.
import { connect, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { SvcError } from '../errors/svc-error.js';
import { durationType, sizeType } from '../config/value-types.js';
import { nowMicros } from './clock.js';
import { escapeJsonString, loadAlertTemplate } from './alert-template.js';
import type { AlertTemplate } from './alert-template.js';
import type { LogRecord, LogWriter, WriterContext } from './log-writer.js';

export const MAX_ALERT_TARGETS = 12;
const PROPS = [
  'location',
  'alertTargets',
  'defaultAlertHost',
  'defaultAlertPort',
  'inBufferSize',
  'outBufferSize',
  'reconnectDelay',
] as const;
type Prop = (typeof PROPS)[number];

/** One alert manager address. */
export interface AlertTarget {
  readonly host: string;
  readonly port: number;
}

/** Tuning knobs that are not log.conf properties (tests use them). */
export interface AlertSocketWriterOptions {
  /** Bound on one attempt: connect, send, read the status line. Default 2000 ms. */
  readonly attemptTimeoutMs?: number;
  /** How long close() waits for the queue to drain. Default 2000 ms. */
  readonly closeTimeoutMs?: number;
  /** Most alerts waiting for delivery. Default 1000. */
  readonly maxQueued?: number;
  /** Picks the first target: index = floor(random() * targets). Default Math.random. */
  readonly random?: () => number;
}

interface Queued {
  readonly escapedMessage: string;
  readonly bytes: number;
}

type Outcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** A host name or IP address (IPv6 optionally in brackets); null when malformed. */
function parseHost(text: string): string | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare) !== 0) return bare;
  return bare === text && /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/.test(bare) ? bare : null;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address; null when malformed. */
function parseTarget(text: string, defaultPort: number): AlertTarget | null {
  const close = text.lastIndexOf(']');
  const colon = text.lastIndexOf(':');
  const hasPort = colon > close && (text.startsWith('[') || text.indexOf(':') === colon);
  const host = parseHost(hasPort ? text.slice(0, colon) : text);
  if (host === null) return null;
  if (!hasPort) return { host, port: defaultPort };
  const portText = text.slice(colon + 1);
  const port = Number(portText);
  return /^\d{1,5}$/.test(portText) && port >= 1 && port <= 65535 ? { host, port } : null;
}

function formatTarget(t: AlertTarget): string {
  return (t.host.includes(':') ? `[${t.host}]` : t.host) + ':' + t.port;
}

/**
 * Sends every record whose level is in the writer's mask to an alert manager
 * (`POST /api/v1/alerts`). `write` only enqueues; a single pump delivers alerts in
 * order, starting at a random target and failing over to the next one on any
 * error. Delivered alerts count in `svc_alerts_sent_total`; alerts that no target
 * took, or that overflowed the queue, count in `svc_alerts_failed_total` and are
 * reported at error level (never critical, so they cannot loop back here).
 */
export class AlertSocketWriter implements LogWriter {
  readonly mask: number;
  readonly targets: readonly AlertTarget[];
  readonly reconnectDelayMs: number;
  readonly inBufferSize: number;
  readonly outBufferSize: number;

  private readonly template: AlertTemplate;
  private readonly attemptTimeoutMs: number;
  private readonly closeTimeoutMs: number;
  private readonly maxQueued: number;
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private current: number;
  private running = false;
  private closing = false;
  private aborted = false;
  private closed: Promise<void> | null = null;
  private droppedInRow = 0;
  private readonly sockets = new Set<Socket>();
  private readonly idleWaiters: Array<() => void> = [];
  private wakeDelay: (() => void) | null = null;

  constructor(
    private readonly ctx: WriterContext,
    options: AlertSocketWriterOptions = {},
  ) {
    this.mask = ctx.mask;
    const bad = (prop: string, value: string, why: string): SvcError =>
      new SvcError('CONFIG', `w.${ctx.name}.${prop}=${value}: ${why}`);
    for (const key of ctx.props.keys()) {
      if ((PROPS as readonly string[]).includes(key)) continue;
      const hint = PROPS.find((p) => p.toLowerCase() === key.toLowerCase());
      throw new SvcError(
        'CONFIG',
        `w.${ctx.name}.${key}: unknown property of the alert writer` +
          (hint ? ` (did you mean ${hint}?)` : ` (expected one of ${PROPS.join(', ')})`),
      );
    }
    const prop = (p: Prop): string | undefined => ctx.props.get(p)?.trim();
    const size = (p: Prop, dflt: number): number => {
      const text = prop(p);
      if (text === undefined || text === '') return dflt;
      let n: number;
      try {
        n = sizeType.parse(text);
      } catch (e) {
        throw bad(p, text, e instanceof Error ? e.message : String(e));
      }
      if (n < 1024 || n > 1024 ** 3) throw bad(p, text, 'expected a size from 1k to 1g');
      return n;
    };

    const hostText = prop('defaultAlertHost') || '127.0.0.1';
    const portText = prop('defaultAlertPort') || '9093';
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw bad('defaultAlertPort', portText, 'expected a port 1..65535');
    }
    const defaultPort = Number(portText);
    const host = parseHost(hostText);
    if (host === null) throw bad('defaultAlertHost', hostText, 'expected a host name or IP address without a port');
    const defaultHost: AlertTarget = { host, port: defaultPort };

    const targetsText = prop('alertTargets') ?? '';
    const entries = targetsText
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (entries.length > MAX_ALERT_TARGETS) {
      throw bad('alertTargets', targetsText, `${entries.length} targets, at most ${MAX_ALERT_TARGETS} are allowed`);
    }
    const targets = entries.map((e) => {
      const t = parseTarget(e, defaultPort);
      if (t === null)
        throw bad('alertTargets', targetsText, `bad target "${e}" (expected host or host:port, port 1..65535)`);
      return t;
    });
    this.targets = targets.length > 0 ? targets : [defaultHost];

    const delayText = prop('reconnectDelay') || '250';
    let delay: number;
    try {
      delay = durationType.parse(delayText);
    } catch {
      delay = NaN;
    }
    if (!(delay >= 0 && delay <= 60_000)) throw bad('reconnectDelay', delayText, 'expected milliseconds 0..60000');
    this.reconnectDelayMs = delay;
    this.inBufferSize = size('inBufferSize', 2 * 1024 ** 2);
    this.outBufferSize = size('outBufferSize', 4 * 1024 ** 2);

    try {
      this.template = loadAlertTemplate(
        prop('location'),
        { root: ctx.root, logDir: ctx.logDir },
        { env: ctx.env, version: ctx.version },
        `w.${ctx.name}.location`,
      );
    } catch (e) {
      throw new SvcError('CONFIG', e instanceof Error ? e.message : String(e), { cause: e });
    }
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 2000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 2000;
    this.maxQueued = options.maxQueued ?? 1000;
    const r = (options.random ?? Math.random)();
    this.current = Math.min(this.targets.length - 1, Math.max(0, Math.floor(r * this.targets.length)));
  }

  /** Enqueues an alert for a record in the mask. Never throws, never waits. */
  write(record: LogRecord): void {
    if ((record.level & this.mask) === 0) return;
    try {
      if (this.closing) {
        this.ctx.metrics.alertsFailed.inc();
        return;
      }
      const escapedMessage = escapeJsonString(record.message);
      // The date placeholders are rendered at send time; 64 bytes covers them.
      const bytes = this.template.literalLength + Buffer.byteLength(escapedMessage) + 64;
      if (this.queue.length >= this.maxQueued || this.queuedBytes + bytes > this.outBufferSize) {
        this.ctx.metrics.alertsFailed.inc();
        if (this.droppedInRow++ === 0) {
          this.ctx.report(
            'error',
            `alert writer ${this.ctx.name}: queue full (${this.queue.length}/${this.maxQueued} alerts, ` +
              `${this.queuedBytes}+${bytes}/${this.outBufferSize} bytes), ` +
              'dropping alerts until it drains',
          );
        }
        return;
      }
      if (this.droppedInRow > 0) {
        this.ctx.report(
          'error',
          `alert writer ${this.ctx.name}: ${this.droppedInRow} alerts were dropped on a full queue`,
        );
        this.droppedInRow = 0;
      }
      this.queue.push({ escapedMessage, bytes });
      this.queuedBytes += bytes;
      if (!this.running) {
        this.running = true;
        void this.pump();
      }
    } catch (e) {
      // A writer must never throw into the logger; the fault is reported instead.
      this.ctx.report('error', `alert writer ${this.ctx.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Alerts are sent as soon as they are queued; nothing to flush. */
  flush(): void {}

  /** Waits up to the close bound for queued alerts, then abandons the rest and closes sockets. */
  close(): Promise<void> {
    this.closed ??= this.doClose();
    return this.closed;
  }

  private async doClose(): Promise<void> {
    this.closing = true;
    if (this.running) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((res) => this.idleWaiters.push(res)),
        new Promise<void>((res) => {
          timer = setTimeout(res, this.closeTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    this.aborted = true;
    for (const s of this.sockets) s.destroy();
    this.wakeDelay?.();
    if (this.running) await new Promise<void>((res) => this.idleWaiters.push(res));
  }

  /** Delivers queued alerts one by one; never rejects. */
  private async pump(): Promise<void> {
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next === undefined) break;
        this.queuedBytes -= next.bytes;
        if (this.aborted) {
          // One report for everything abandoned at close, not one per alert.
          const dropped = 1 + this.queue.splice(0).length;
          this.queuedBytes = 0;
          this.ctx.metrics.alertsFailed.inc(dropped);
          this.ctx.report('error', `alert writer ${this.ctx.name}: ${dropped} queued alerts not sent: writer closed`);
          break;
        }
        await this.deliver(next);
      }
    } catch (e) {
      this.ctx.report('error', `alert writer ${this.ctx.name}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.running = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async deliver(alert: Queued): Promise<void> {
    const body = Buffer.from(this.template.render(alert.escapedMessage, (this.ctx.now ?? nowMicros)()), 'utf8');
    const n = this.targets.length;
    // Every target twice; a lone target three times, reconnectDelay apart.
    const maxAttempts = n === 1 ? 3 : 2 * n;
    const start = this.current;
    const tried: string[] = [];
    for (let attempt = 0; attempt < maxAttempts && !this.aborted; attempt++) {
      if (attempt > 0 && this.current === start) await this.delay(this.reconnectDelayMs);
      if (this.aborted) break;
      const target = this.targets[this.current] ?? this.targets[0]!;
      const outcome = await this.attempt(target, body);
      if (outcome.ok) {
        this.ctx.metrics.alertsSent.inc();
        return;
      }
      tried.push(`${formatTarget(target)} (${outcome.reason})`);
      this.current = (this.current + 1) % n;
    }
    if (this.aborted) tried.push('abandoned: writer closed');
    this.fail(alert, tried);
  }

  private fail(alert: Queued, tried: readonly string[]): void {
    this.ctx.metrics.alertsFailed.inc();
    const preview =
      alert.escapedMessage.length > 200 ? alert.escapedMessage.slice(0, 200) + '...' : alert.escapedMessage;
    this.ctx.report(
      'error',
      `alert writer ${this.ctx.name}: alert not delivered; tried ${tried.join(', ')}; message: ${preview}`,
    );
  }

  /** Resolves after `ms`, or at once when the writer is closed. */
  private delay(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((res) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeDelay = null;
        res();
      };
      const timer = setTimeout(done, ms);
      this.wakeDelay = done;
    });
  }

  /** One POST to one target, bounded by the attempt timeout. Never rejects. */
  private attempt(target: AlertTarget, body: Buffer): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const head =
        'POST /api/v1/alerts HTTP/1.1\r\n' +
        `Host: ${formatTarget(target)}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\n` +
        'Connection: close\r\n\r\n';
      let socket: Socket;
      try {
        socket = connect({ host: target.host, port: target.port });
      } catch (e) {
        resolve({ ok: false, reason: e instanceof Error ? e.message : String(e) });
        return;
      }
      this.sockets.add(socket);
      let settled = false;
      let response = '';
      const finish = (outcome: Outcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.sockets.delete(socket);
        socket.destroy();
        resolve(outcome);
      };
      const timer = setTimeout(
        () => finish({ ok: false, reason: `no response within ${this.attemptTimeoutMs} ms` }),
        this.attemptTimeoutMs,
      );
      timer.unref();
      // Stays attached after finish: a late error on a destroyed socket must not go uncaught.
      socket.on('error', (e: NodeJS.ErrnoException) => finish({ ok: false, reason: e.code ?? e.message }));
      socket.on('close', () =>
        finish({ ok: false, reason: this.aborted ? 'writer closed' : 'closed without a response' }),
      );
      socket.on('data', (chunk: Buffer) => {
        response += chunk.toString('latin1');
        const eol = response.indexOf('\r\n');
        if (eol < 0) {
          if (response.length > Math.min(this.inBufferSize, 8192))
            finish({ ok: false, reason: 'status line too long' });
          return;
        }
        const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(response.slice(0, eol));
        if (m === null) finish({ ok: false, reason: 'not an HTTP response' });
        else if (m[1]!.startsWith('2')) finish({ ok: true });
        else finish({ ok: false, reason: `HTTP ${m[1]}` });
      });
      socket.setNoDelay(true);
      // Buffered by net until the connection is up; one write keeps head and body in one segment.
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
  }
}
