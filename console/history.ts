// Query history in the browser's localStorage: the last 100 statements run, newest first, with
// when they ran and how they ended; a click puts one back in the editor.
import { el } from './grid.js';

export interface HistoryEntry {
  readonly sql: string;
  readonly at: number;
  readonly ok: boolean;
  readonly note: string;
}

const KEY = 'svcdb.console.history';
const MAX = 100;

export function loadHistory(): HistoryEntry[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? (v as HistoryEntry[]).filter((e) => typeof e?.sql === 'string') : [];
  } catch {
    return [];
  }
}

export class QueryHistory {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  #entries: HistoryEntry[];

  constructor(onPick: (sql: string) => void) {
    this.#entries = loadHistory();
    this.element = el('section', 'history');
    const head = el('div', 'side-head');
    const clear = el('button', 'small', 'Clear');
    clear.addEventListener('click', () => {
      this.#entries = [];
      this.#save();
    });
    head.append(el('h2', '', 'History'), clear);
    this.#list = el('ol', 'history-list');
    this.#list.addEventListener('click', (e) => {
      const li = (e.target as HTMLElement).closest('li');
      const entry = li ? this.#entries[Number(li.dataset.index)] : undefined;
      if (entry) onPick(entry.sql);
    });
    this.element.append(head, this.#list);
    this.#render();
  }

  add(sql: string, ok: boolean, note: string): void {
    this.#entries = [{ sql, at: Date.now(), ok, note }, ...this.#entries.filter((e) => e.sql !== sql)].slice(0, MAX);
    this.#save();
  }

  #save(): void {
    try {
      localStorage.setItem(KEY, JSON.stringify(this.#entries));
    } catch {
      // Storage full or disabled: the history lives for this page only.
    }
    this.#render();
  }

  #render(): void {
    this.#list.replaceChildren(
      ...this.#entries.map((e, i) => {
        const li = el('li', e.ok ? 'ok' : 'failed');
        li.dataset.index = String(i);
        li.title = `${new Date(e.at).toLocaleString()} — ${e.note}`;
        li.append(el('code', '', e.sql.length > 200 ? `${e.sql.slice(0, 200)}…` : e.sql));
        return li;
      }),
    );
  }
}
