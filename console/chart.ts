// The chart view: uPlot on a canvas, for results with a timestamp column. x is the timestamp
// (the designated one, else the first TIMESTAMP column), one series per numeric column (up to
// eight), line or bar; drag to zoom into a time range, double-click to zoom out.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Column, QueryResult } from './api.js';
import { el } from './grid.js';

const NUMERIC = /^(BYTE|SHORT|INT|LONG|FLOAT|DOUBLE|DECIMAL.*)$/;
const MAX_SERIES = 8;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

export type ChartKind = 'line' | 'bar';

export interface ChartPlan {
  readonly x: number;
  readonly series: readonly number[];
}

/** Which columns chart: null when the result has no timestamp or no numeric column. */
export function chartPlan(columns: readonly Column[], designated: number): ChartPlan | null {
  const isTime = (c: Column | undefined): boolean => !!c && /^TIMESTAMP/.test(c.type);
  const x = isTime(columns[designated]) ? designated : columns.findIndex((c) => isTime(c));
  if (x < 0) return null;
  const series = columns
    .map((c, i) => (i !== x && NUMERIC.test(c.type) ? i : -1))
    .filter((i) => i >= 0)
    .slice(0, MAX_SERIES);
  return series.length > 0 ? { x, series } : null;
}

/** Tick labels in UTC, 24-hour: dates for steps of a day or more, else times, the date again where it changes. */
export function utcTicks(splits: readonly number[], step: number): string[] {
  let lastDate = '';
  return splits.map((s) => {
    const iso = new Date(s * 1000).toISOString();
    const date = iso.slice(0, 10);
    if (step >= 86400) return date;
    const time = step >= 60 ? iso.slice(11, 16) : step >= 1 ? iso.slice(11, 19) : iso.slice(11, 23);
    const label = date !== lastDate ? `${time}\n${date}` : time;
    lastDate = date;
    return label;
  });
}

export class ResultChart {
  readonly element: HTMLElement;
  readonly #plotBox: HTMLElement;
  readonly #note: HTMLElement;
  #plot: uPlot | null = null;
  #result: QueryResult | null = null;
  #kind: ChartKind = 'line';

  constructor() {
    this.element = el('div', 'chart');
    const bar = el('div', 'chart-bar');
    const kinds = el('div', 'chart-kinds');
    for (const k of ['line', 'bar'] as const) {
      const b = el('button', k === this.#kind ? 'on' : '', k === 'line' ? 'Line' : 'Bar');
      b.dataset.kind = k;
      b.addEventListener('click', () => {
        this.#kind = k;
        for (const o of kinds.querySelectorAll('button')) o.classList.toggle('on', o === b);
        this.#render();
      });
      kinds.append(b);
    }
    this.#note = el('span', 'chart-note');
    bar.append(kinds, this.#note);
    this.#plotBox = el('div', 'chart-plot');
    this.element.append(bar, this.#plotBox);
    new ResizeObserver(() => {
      if (this.#plot && this.element.offsetParent !== null) this.#plot.setSize(this.#size());
    }).observe(this.#plotBox);
  }

  show(result: QueryResult | null): void {
    this.#result = result;
    this.#render();
  }

  /** Draws again at the current size (after the tab becomes visible). */
  refresh(): void {
    this.#render();
  }

  #size(): { width: number; height: number } {
    return {
      width: Math.max(300, this.#plotBox.clientWidth),
      height: Math.max(200, this.#plotBox.clientHeight - 40),
    };
  }

  #render(): void {
    this.#plot?.destroy();
    this.#plot = null;
    this.#plotBox.replaceChildren();
    const r = this.#result;
    const plan = r ? chartPlan(r.columns, r.timestamp) : null;
    if (!r || !plan) {
      this.#note.textContent = r
        ? 'Nothing to chart: a chart needs a TIMESTAMP column and at least one numeric column.'
        : 'Run a query to chart its result.';
      return;
    }
    // uPlot wants x ascending, in seconds.
    const order = r.dataset
      .map((row, i) => ({ t: Date.parse(String(row[plan.x])) / 1000, i }))
      .filter((p) => Number.isFinite(p.t))
      .sort((a, b) => a.t - b.t);
    const xs = order.map((p) => p.t);
    const ys = plan.series.map((c) =>
      order.map((p) => {
        const v = r.dataset[p.i]?.[c];
        const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
        return Number.isFinite(n) ? n : null;
      }),
    );
    this.#note.textContent = `${plan.series.length} series over ${xs.length.toLocaleString()} points by ${r.columns[plan.x]?.name}; drag to zoom, double-click to reset`;
    const paths = this.#kind === 'bar' ? uPlot.paths.bars!({ size: [0.8, 64] }) : undefined;
    const opts: uPlot.Options = {
      ...this.#size(),
      cursor: { drag: { x: true, y: false } },
      // svcdb's timestamps are UTC; so is the axis.
      tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [
        { values: (_u: uPlot, splits: number[], _i: number, _s: number, step: number) => utcTicks(splits, step) },
        {},
      ],
      // The x range in view (epoch seconds) on the element, as data-x-range="min,max": zoom shows there.
      hooks: {
        setScale: [
          (u: uPlot, key: string) => {
            if (key === 'x') this.element.dataset.xRange = `${u.scales.x?.min},${u.scales.x?.max}`;
          },
        ],
      },
      series: [
        {
          label: r.columns[plan.x]?.name ?? 'time',
          value: (_u: uPlot, v: number | null) =>
            v === null ? '--' : new Date(v * 1000).toISOString().replace('T', ' ').replace('Z', ''),
        },
        ...plan.series.map((c, k) => ({
          label: r.columns[c]?.name ?? `s${k}`,
          stroke: COLORS[k % COLORS.length],
          fill: this.#kind === 'bar' ? `${COLORS[k % COLORS.length]}99` : undefined,
          width: this.#kind === 'bar' ? 0 : 1.5,
          spanGaps: false,
          ...(paths ? { paths } : {}),
        })),
      ],
    };
    this.#plot = new uPlot(opts, [xs, ...ys] as uPlot.AlignedData, this.#plotBox);
  }
}
