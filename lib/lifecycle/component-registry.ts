// The component registry: each server component with its state machine, its
// dependencies and its start/stop hooks; the source of the /lifecycle report.
//
// Allowed transitions (anything else is a programming error and throws):
//   INIT      -> STARTING | STOPPED            (STOPPED: never started, at shutdown)
//   STARTING  -> READY | DEGRADED | FAILED | STOPPING
//   READY     -> DEGRADED | SWITCHING | STOPPING | FAILED
//   DEGRADED  -> READY | SWITCHING | STOPPING | FAILED
//   SWITCHING -> READY | DEGRADED | FAILED     (role switch; Enterprise in QuestDB, unused here)
//   STOPPING  -> STOPPED | FAILED
//   FAILED    -> STOPPING | STOPPED
//   STOPPED   -> (final)
import { nowMicros } from '../log/clock.js';

export const STATES = ['INIT', 'STARTING', 'DEGRADED', 'READY', 'SWITCHING', 'STOPPING', 'STOPPED', 'FAILED'] as const;
export type ComponentState = (typeof STATES)[number];

const TRANSITIONS: Record<ComponentState, readonly ComponentState[]> = {
  INIT: ['STARTING', 'STOPPED'],
  STARTING: ['READY', 'DEGRADED', 'FAILED', 'STOPPING'],
  READY: ['DEGRADED', 'SWITCHING', 'STOPPING', 'FAILED'],
  DEGRADED: ['READY', 'SWITCHING', 'STOPPING', 'FAILED'],
  SWITCHING: ['READY', 'DEGRADED', 'FAILED'],
  STOPPING: ['STOPPED', 'FAILED'],
  FAILED: ['STOPPING', 'STOPPED'],
  STOPPED: [],
};

export function canTransition(from: ComponentState, to: ComponentState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Progress while a component restores data (e.g. storage recovery). */
export interface Progress {
  readonly task: string;
  readonly done: number;
  readonly total: number | null;
  readonly unit: string;
}

/** What a component does; given to the registry. */
export interface ComponentSpec {
  readonly name: string;
  readonly hardRequiredDependencies?: readonly string[];
  readonly softDependencies?: readonly string[];
  /** Starts the component. Resolve to 'DEGRADED' when it runs with a problem. */
  start(handle: ComponentHandle): Promise<void | 'READY' | 'DEGRADED'>;
  stop(handle: ComponentHandle): Promise<void>;
}

/** What a component may report while it runs. */
export interface ComponentHandle {
  readonly name: string;
  setProgress(p: Progress | null): void;
  /** READY <-> DEGRADED while running. */
  setHealthy(healthy: boolean, reason?: string): void;
  /** The component stopped working on its own (e.g. its thread died): -> FAILED. */
  fail(reason: string): void;
}

export interface ComponentReport {
  readonly name: string;
  readonly state: ComponentState;
  readonly lastTransitionMicros: number;
  readonly latestProgress: Progress | null;
  readonly hardRequiredDependencies: readonly string[];
  readonly softDependencies: readonly string[];
}

export interface LifecycleReport {
  readonly capturedAtMicros: number;
  readonly components: readonly ComponentReport[];
}

export interface LifecycleEvents {
  onTransition?(name: string, from: ComponentState, to: ComponentState, reason: string | undefined): void;
  onNotStarted?(name: string, reason: string): void;
}

class Entry implements ComponentHandle {
  readonly spec: ComponentSpec;
  state: ComponentState = 'INIT';
  lastTransitionMicros = nowMicros();
  progress: Progress | null = null;
  failure: unknown = undefined;
  readonly #registry: ComponentRegistry;

  constructor(spec: ComponentSpec, registry: ComponentRegistry) {
    this.spec = spec;
    this.#registry = registry;
  }

  get name(): string {
    return this.spec.name;
  }

  setProgress(p: Progress | null): void {
    this.progress = p;
    this.#registry.changed();
  }

  setHealthy(healthy: boolean, reason?: string): void {
    const to = healthy ? 'READY' : 'DEGRADED';
    if (this.state === to || (this.state !== 'READY' && this.state !== 'DEGRADED')) return;
    this.#registry.transition(this, to, reason);
  }

  fail(reason: string): void {
    if (canTransition(this.state, 'FAILED')) this.#registry.transition(this, 'FAILED', reason);
  }
}

export class ComponentRegistry {
  readonly #entries: Entry[] = [];
  readonly #events: LifecycleEvents;
  readonly #listeners = new Set<() => void>();

  constructor(events: LifecycleEvents = {}) {
    this.#events = events;
  }

  /** Adds a component. Dependencies must already be registered (registration order is start order). */
  register(spec: ComponentSpec): void {
    if (this.#find(spec.name)) throw new Error(`component ${spec.name} is already registered`);
    for (const d of [...(spec.hardRequiredDependencies ?? []), ...(spec.softDependencies ?? [])]) {
      if (!this.#find(d)) throw new Error(`component ${spec.name} depends on ${d}, which is not registered before it`);
    }
    this.#entries.push(new Entry(spec, this));
    this.changed();
  }

  state(name: string): ComponentState | undefined {
    return this.#find(name)?.state;
  }

  /** Called on every state or progress change (the health worker mirrors the report this way). */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  changed(): void {
    for (const l of this.#listeners) l();
  }

  transition(e: Entry, to: ComponentState, reason?: string): void {
    const from = e.state;
    if (!canTransition(from, to)) throw new Error(`component ${e.name}: illegal transition ${from} -> ${to}`);
    e.state = to;
    e.lastTransitionMicros = nowMicros();
    this.#events.onTransition?.(e.name, from, to, reason);
    this.changed();
  }

  /**
   * Starts every component in registration order (dependencies come first). A
   * component whose hard dependency is not READY or DEGRADED is not started and
   * stays INIT; soft dependencies only order the start. Returns the names of the
   * components that failed or could not start.
   */
  async startAll(): Promise<{ failed: string[]; notStarted: string[] }> {
    const failed: string[] = [];
    const notStarted: string[] = [];
    for (const e of this.#entries) {
      if (e.state !== 'INIT') continue;
      const missing = (e.spec.hardRequiredDependencies ?? []).filter((d) => !isRunning(this.#find(d)?.state));
      if (missing.length > 0) {
        notStarted.push(e.name);
        this.#events.onNotStarted?.(e.name, `hard dependency ${missing.join(', ')} is not running`);
        continue;
      }
      this.transition(e, 'STARTING');
      try {
        const result = await e.spec.start(e);
        if ((e.state as ComponentState) === 'STARTING')
          this.transition(e, result === 'DEGRADED' ? 'DEGRADED' : 'READY');
      } catch (err) {
        e.failure = err;
        failed.push(e.name);
        this.transition(e, 'FAILED', err instanceof Error ? err.message : String(err));
      }
    }
    return { failed, notStarted };
  }

  /** Stops every component in reverse registration order; never throws. */
  async stopAll(): Promise<void> {
    for (const e of [...this.#entries].reverse()) {
      if (e.state === 'STOPPED') continue;
      if (e.state === 'INIT') {
        this.transition(e, 'STOPPED');
        continue;
      }
      if (e.state === 'SWITCHING') this.transition(e, 'FAILED', 'stopped during a switch');
      const wasFailed = e.state === 'FAILED';
      this.transition(e, 'STOPPING');
      try {
        if (!wasFailed) await e.spec.stop(e);
        this.transition(e, 'STOPPED');
      } catch (err) {
        this.transition(e, 'FAILED', err instanceof Error ? err.message : String(err));
        this.transition(e, 'STOPPED');
      }
    }
  }

  report(): LifecycleReport {
    return {
      capturedAtMicros: nowMicros(),
      components: this.#entries.map((e) => ({
        name: e.name,
        state: e.state,
        lastTransitionMicros: e.lastTransitionMicros,
        latestProgress: e.progress,
        hardRequiredDependencies: [...(e.spec.hardRequiredDependencies ?? [])],
        softDependencies: [...(e.spec.softDependencies ?? [])],
      })),
    };
  }

  /** The error a failed component failed with. */
  failureOf(name: string): unknown {
    return this.#find(name)?.failure;
  }

  #find(name: string): Entry | undefined {
    return this.#entries.find((e) => e.name === name);
  }
}

function isRunning(s: ComponentState | undefined): boolean {
  return s === 'READY' || s === 'DEGRADED';
}
