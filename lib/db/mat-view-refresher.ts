// When materialized views refresh: IMMEDIATE ones after each commit of their base table, timer
// ones every interval (from START), all of them at open when their base table moved on while
// the database was closed (or crashed), and on REFRESH MATERIALIZED VIEW. One refresh of a view
// runs at a time: requests queue behind the running one, and commits that arrive while one is
// queued add nothing (the queued refresh reads everything committed by the time it starts).
// What a refresh does is exec/mat-view-refresh.ts. Live views (exec/live-view-refresh.ts) refresh
// after their base table commits, at most once per FLUSH EVERY: the first commit after a quiet
// interval refreshes at once, later ones wait for the interval's end and share one refresh.
import { errorMessage } from '../errors/svc-error.js';
import type { MatViewControl } from '../exec/mat-view-ddl.js';
import { refreshLiveView } from '../exec/live-view-refresh.js';
import {
  periodOf,
  refreshMatView,
  type RefreshEnv,
  type RefreshRequest,
  type RefreshResult,
} from '../exec/mat-view-refresh.js';
import type { Catalog } from '../storage/catalog.js';
import type { Table } from '../storage/table.js';

const key = (name: string): string => name.toLowerCase();

export class MatViewRefresher implements MatViewControl {
  readonly #catalog: Catalog;
  readonly #env: () => RefreshEnv;
  readonly #log: (message: string) => void;
  /** The last queued refresh of each view (by lower-case name): the next one starts after it. */
  readonly #chains = new Map<string, Promise<unknown>>();
  /** Views with an incremental refresh queued and not started. */
  readonly #queued = new Set<string>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** Live views' refreshes waiting for their FLUSH EVERY interval to end, and when each last started. */
  readonly #liveDue = new Map<string, NodeJS.Timeout>();
  readonly #liveLast = new Map<string, number>();
  readonly #abort = new AbortController();
  /** Views by their base table (lower-case names), rebuilt after views come and go. */
  #byBase: Map<string, string[]> | null = null;
  #closed = false;

  constructor(catalog: Catalog, env: () => RefreshEnv, log: (message: string) => void = () => {}) {
    this.#catalog = catalog;
    this.#env = env;
    this.#log = log;
  }

  /** Arms the timers and catches up the views whose base table committed since they last refreshed. */
  start(): void {
    for (const t of this.#catalog.matViews()) {
      this.#arm(t);
      const mv = t.mv!;
      if (mv.state.invalid !== null || mv.def.refresh.type === 'manual') continue;
      try {
        if (this.#catalog.get(mv.def.baseTable).txn.txn !== mv.state.baseTxn) this.schedule(t.name);
      } catch {
        this.schedule(t.name); // the base table is gone: the refresh records the view invalid
      }
    }
    // Live views whose base table committed while the database was closed catch up now.
    for (const t of this.#catalog.liveViews()) this.#liveKick(t);
  }

  /** A table committed: its IMMEDIATE views refresh. */
  baseCommitted(t: Table): void {
    if (this.#closed) return;
    const views = this.#views().get(key(t.name));
    if (views === undefined) return;
    for (const v of views) {
      const view = this.#find(v);
      if (view?.mv?.def.live !== undefined) this.#liveKick(view);
      else if (view?.mv && view.mv.def.refresh.type === 'immediate' && view.mv.state.invalid === null) this.schedule(v);
    }
  }

  created(name: string, deferred: boolean): void {
    this.#byBase = null;
    const t = this.#find(name);
    if (t === null) return;
    this.#arm(t);
    if (!deferred) this.schedule(name);
  }

  changed(name: string): void {
    const t = this.#find(name);
    if (t !== null && t.mv?.def.live !== undefined) this.#liveKick(t);
    else if (t !== null) this.#arm(t);
  }

  dropped(name: string): void {
    this.#byBase = null;
    clearTimeout(this.#liveDue.get(key(name)));
    this.#liveDue.delete(key(name));
    this.#liveLast.delete(key(name));
    clearTimeout(this.#timers.get(key(name)));
    this.#timers.delete(key(name));
  }

  /** An incremental refresh, queued unless one is queued already; its failure is logged. */
  schedule(name: string): void {
    const k = key(name);
    if (this.#closed || this.#queued.has(k)) return;
    this.#queued.add(k);
    void this.#enqueue(k, () => {
      this.#queued.delete(k);
      return this.#run(name, { mode: 'incremental' });
    }).catch((e: unknown) => {
      this.#log(`materialized view ${name} refresh failed: ${errorMessage(e)}`);
    });
  }

  refresh(name: string, req: RefreshRequest): Promise<RefreshResult> {
    return this.#enqueue(key(name), () => this.#run(name, req));
  }

  /**
   * Resolves once every queued refresh has run (tests and the benchmark wait on it); live views'
   * refreshes waiting for their FLUSH EVERY interval run now.
   */
  async idle(): Promise<void> {
    for (const [k, timer] of [...this.#liveDue]) {
      clearTimeout(timer);
      this.#liveDue.delete(k);
      const t = this.#find(k);
      if (t !== null) this.#liveRun(t);
    }
    while (this.#chains.size > 0) await Promise.allSettled([...this.#chains.values()]);
  }

  /** Stops the timers, aborts the running refreshes and waits for them. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    for (const t of this.#liveDue.values()) clearTimeout(t);
    this.#liveDue.clear();
    this.#abort.abort();
    await Promise.allSettled([...this.#chains.values()]);
  }

  #run(name: string, req: RefreshRequest): Promise<RefreshResult> {
    const t = this.#find(name);
    if (this.#closed || t === null) return Promise.resolve({ rows: 0, interval: null });
    if (t.mv?.def.live !== undefined) return refreshLiveView(name, this.#env(), this.#abort.signal);
    return refreshMatView(name, req, this.#env(), this.#abort.signal);
  }

  /**
   * A live view's base table committed (or the view is new, resumed, or the database opened): a
   * refresh now when the last one started a FLUSH EVERY ago or more, else one at that interval's
   * end (one for all the commits meanwhile). Nothing when the view is up to date.
   */
  #liveKick(t: Table): void {
    const k = key(t.name);
    const mv = t.mv;
    if (this.#closed || mv?.def.live === undefined || this.#liveDue.has(k)) return;
    if (mv.state.invalid !== null || mv.state.liveSuspended === true) return;
    try {
      if (this.#catalog.get(mv.def.baseTable).txn.txn === mv.state.baseTxn) return;
    } catch {
      // The base table is gone: the refresh records the view invalid.
    }
    const wait = (this.#liveLast.get(k) ?? -Infinity) + mv.def.live.flushEveryMicros / 1000 - Date.now();
    if (wait <= 0) {
      this.#liveRun(t);
      return;
    }
    const timer = setTimeout(() => {
      this.#liveDue.delete(k);
      const view = this.#find(t.name);
      if (view !== null) this.#liveRun(view);
    }, wait);
    timer.unref();
    this.#liveDue.set(k, timer);
  }

  #liveRun(t: Table): void {
    this.#liveLast.set(key(t.name), Date.now());
    this.schedule(t.name);
  }

  #enqueue<T>(k: string, f: () => Promise<T>): Promise<T> {
    const prev = this.#chains.get(k) ?? Promise.resolve();
    const next = prev.then(f, f);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.#chains.set(k, tail);
    void tail.then(() => {
      if (this.#chains.get(k) === tail) this.#chains.delete(k);
    });
    return next;
  }

  /**
   * (Re)arms a view's next wake-up: a timer view's next tick (START plus a whole number of
   * intervals), and for a PERIOD view that is not MANUAL the close of its current period (its
   * end plus DELAY), when the rows waiting for it are applied; whichever comes first.
   */
  #arm(t: Table): void {
    const k = key(t.name);
    clearTimeout(this.#timers.get(k));
    this.#timers.delete(k);
    const r = t.mv?.def.refresh;
    if (this.#closed || r === undefined || r.type === 'manual') return;
    const now = Date.now();
    let next = Infinity;
    if (r.type === 'timer' && r.everyMicros !== null) {
      const every = r.everyMicros / 1000;
      const start = r.start !== null ? r.start / 1000 : now;
      next = start > now ? start : start + Math.ceil((now - start) / every + 1e-9) * every;
    }
    if (r.period !== null) {
      try {
        const periods = periodOf(t, this.#env());
        if (periods !== null) next = Math.min(next, periods.nextClose(periods.hi(now * 1000)) / 1000);
      } catch (e) {
        this.#log(`materialized view ${t.name}: its periods cannot be computed: ${errorMessage(e)}`);
      }
    }
    if (next === Infinity) return;
    const timer = setTimeout(
      () => {
        this.#timers.delete(k);
        const view = this.#find(t.name);
        if (view === null || view.mv === null) return;
        if (view.mv.state.invalid === null) this.schedule(view.name);
        this.#arm(view);
      },
      Math.min(Math.max(next - now, 1), 2 ** 31 - 1),
    );
    timer.unref();
    this.#timers.set(k, timer);
  }

  #find(name: string): Table | null {
    try {
      const t = this.#catalog.get(name);
      return t.mv !== null ? t : null;
    } catch {
      return null;
    }
  }

  #views(): Map<string, string[]> {
    if (this.#byBase === null) {
      const m = new Map<string, string[]>();
      for (const t of [...this.#catalog.matViews(), ...this.#catalog.liveViews()]) {
        const b = key(t.mv!.def.baseTable);
        m.set(b, [...(m.get(b) ?? []), t.name]);
      }
      this.#byBase = m;
    }
    return this.#byBase;
  }
}
