// The table list: every table from tables() with its partitioning and row count, and its columns
// with their types from table_columns(); the same names feed the editor's completion.
import { rows, sqlString } from './api.js';
import type { Schema } from './editor.js';
import { el } from './grid.js';

export interface TableInfo {
  readonly name: string;
  readonly partitionBy: string;
  readonly rowCount: number | null;
  readonly designated: string | null;
  readonly columns: readonly { name: string; type: string }[];
}

/** Columns are read for this many tables at most (one request each). */
const MAX_TABLES_WITH_COLUMNS = 200;

export async function loadTables(): Promise<TableInfo[]> {
  const list = await rows(
    'select table_name, partitionBy, table_row_count, designatedTimestamp from tables() order by table_name',
  );
  return Promise.all(
    list.map(async (r, i) => {
      const name = String(r[0]);
      const cols =
        i < MAX_TABLES_WITH_COLUMNS
          ? await rows(`select "column", type from table_columns(${sqlString(name)})`).catch(() => [])
          : [];
      return {
        name,
        partitionBy: String(r[1] ?? 'NONE'),
        rowCount: typeof r[2] === 'number' ? r[2] : r[2] === null ? null : Number(r[2]),
        designated: r[3] === null || r[3] === undefined ? null : String(r[3]),
        columns: cols.map((c) => ({ name: String(c[0]), type: String(c[1]) })),
      };
    }),
  );
}

export function schemaOf(tables: readonly TableInfo[]): Schema {
  return { tables: new Map(tables.map((t) => [t.name, t.columns])) };
}

export class TableList {
  readonly element: HTMLElement;
  readonly #list: HTMLElement;
  /** Tables open in the list stay open across refreshes. */
  readonly #open = new Set<string>();

  constructor(onPick: (name: string) => void, onRefresh: () => void) {
    this.element = el('section', 'tables');
    const head = el('div', 'side-head');
    const refresh = el('button', 'small', '↻');
    refresh.title = 'Refresh the table list';
    refresh.addEventListener('click', onRefresh);
    head.append(el('h2', '', 'Tables'), refresh);
    this.#list = el('div', 'table-list');
    this.#list.addEventListener('dblclick', (e) => {
      const name = (e.target as HTMLElement).closest('summary')?.dataset.table;
      if (name) onPick(name);
    });
    this.element.append(head, this.#list);
  }

  show(tables: readonly TableInfo[]): void {
    if (tables.length === 0) {
      this.#list.replaceChildren(el('p', 'muted', 'No tables yet: create one or drop a CSV file here.'));
      return;
    }
    this.#list.replaceChildren(
      ...tables.map((t) => {
        const d = el('details', 'table');
        d.dataset.table = t.name;
        d.open = this.#open.has(t.name);
        d.addEventListener('toggle', () => (d.open ? this.#open.add(t.name) : this.#open.delete(t.name)));
        const s = el('summary');
        s.dataset.table = t.name;
        s.title = 'Double-click to query it';
        const meta = el(
          'span',
          'table-meta',
          `${t.rowCount === null ? '?' : t.rowCount.toLocaleString('en-US')} rows · ${t.partitionBy}`,
        );
        s.append(el('span', 'table-name', t.name), meta);
        const cols = el('ul', 'columns');
        for (const c of t.columns) {
          const li = el('li');
          li.append(el('span', 'col-name', c.name), el('span', 'col-type', c.type));
          if (c.name === t.designated) li.classList.add('designated');
          cols.append(li);
        }
        d.append(s, cols);
        return d;
      }),
    );
  }

  showError(message: string): void {
    this.#list.replaceChildren(el('p', 'error', message));
  }
}
