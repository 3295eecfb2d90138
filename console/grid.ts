// The result grid: a plain-DOM table with virtual scrolling. A spacer as tall as all the rows
// keeps the scroll bar true; only the rows in view (and a few around them) exist in the DOM, so
// 100,000 rows scroll as fast as 100.
import type { Column } from './api.js';

const ROW_HEIGHT = 24;
const OVERSCAN = 8;
const CHAR_WIDTH = 7.5;

export class ResultGrid {
  readonly element: HTMLElement;
  readonly #spacer: HTMLElement;
  readonly #header: HTMLElement;
  readonly #body: HTMLElement;
  #columns: readonly Column[] = [];
  #rows: readonly (readonly unknown[])[] = [];
  #widths: number[] = [];
  #drawn = { first: -1, last: -1 };
  #frame = 0;

  constructor() {
    this.element = el('div', 'grid');
    this.element.tabIndex = 0;
    this.#header = el('div', 'grid-header');
    this.#spacer = el('div', 'grid-spacer');
    this.#body = el('div', 'grid-body');
    this.#spacer.append(this.#body);
    this.element.append(this.#header, this.#spacer);
    this.element.addEventListener('scroll', () => {
      if (this.#frame === 0)
        this.#frame = requestAnimationFrame(() => {
          this.#frame = 0;
          this.#draw();
        });
    });
    new ResizeObserver(() => this.#draw()).observe(this.element);
  }

  show(columns: readonly Column[], rows: readonly (readonly unknown[])[]): void {
    this.#columns = columns;
    this.#rows = rows;
    const numWidth = Math.max(40, String(rows.length).length * CHAR_WIDTH + 16);
    this.#widths = [
      numWidth,
      ...columns.map((c, i) => {
        let chars = Math.max(c.name.length, c.type.length + 2);
        for (let r = 0; r < Math.min(rows.length, 200); r++) chars = Math.max(chars, cellText(rows[r]?.[i]).length);
        return Math.min(420, Math.max(64, chars * CHAR_WIDTH + 18));
      }),
    ];
    const total = this.#widths.reduce((a, b) => a + b, 0);
    this.#header.replaceChildren(
      this.#row(['#', ...columns.map((c) => c.name)], ['', ...columns.map((c) => c.type)], 'grid-row grid-head-row'),
    );
    this.#header.style.width = `${total}px`;
    this.#spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    this.#spacer.style.width = `${total}px`;
    this.element.scrollTop = 0;
    this.#drawn = { first: -1, last: -1 };
    this.#draw();
  }

  clear(): void {
    this.show([], []);
  }

  /** Rows the DOM holds now (the test checks that it stays small). */
  get renderedRows(): number {
    return this.#body.childElementCount;
  }

  #draw(): void {
    const top = Math.max(0, this.element.scrollTop - this.#header.offsetHeight);
    const height = this.element.clientHeight;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.#rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    if (first === this.#drawn.first && last === this.#drawn.last) return;
    this.#drawn = { first, last };
    const frag = document.createDocumentFragment();
    for (let r = first; r < last; r++) {
      const row = this.#rows[r] ?? [];
      const line = this.#row(
        [String(r + 1), ...this.#columns.map((_, i) => cellText(row[i]))],
        null,
        r % 2 ? 'grid-row odd' : 'grid-row',
      );
      // NULL looks unlike the text 'null'.
      this.#columns.forEach((_, i) => {
        if (row[i] === null || row[i] === undefined) line.children[i + 1]?.classList.add('null');
      });
      line.style.transform = `translateY(${r * ROW_HEIGHT}px)`;
      frag.append(line);
    }
    this.#body.replaceChildren(frag);
  }

  #row(texts: readonly string[], types: readonly string[] | null, cls: string): HTMLElement {
    const line = el('div', cls);
    texts.forEach((t, i) => {
      const cell = el('div', i === 0 ? 'grid-cell grid-num' : 'grid-cell');
      cell.style.width = `${this.#widths[i] ?? 80}px`;
      cell.textContent = t;
      const type = types?.[i];
      if (type) {
        const small = el('span', 'grid-type');
        small.textContent = type;
        cell.append(small);
      }
      line.append(cell);
    });
    return line;
  }
}

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
