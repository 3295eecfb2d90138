// The web console's page: editor on top, result grid or chart below, the table list, CSV import
// and query history at the side. Plain DOM; the server's HTTP API does the work (api.ts).
import './style.css';
import { ApiError, ROW_LIMIT, execute, exportUrl, importCsv, type ImportReport, type QueryResult } from './api.js';
import { ResultChart, chartPlan } from './chart.js';
import { createEditor } from './editor.js';
import { ResultGrid, el } from './grid.js';
import { QueryHistory, loadHistory } from './history.js';
import { TableList, loadTables, schemaOf } from './tables.js';

const DEFAULT_SQL = `-- Ctrl+Enter (Cmd+Enter) runs the statement under the cursor
select timestamp_sequence('2024-01-01', 60000000) ts,
  20 + 5 * sin(x / 60.0) temperature, 12 + 3 * cos(x / 45.0) + rnd_double() humidity
from long_sequence(720);`;

const ms = (ns: number): string => `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;

function main(): void {
  const app = el('div', 'app');
  const header = el('header', 'top');
  const runButton = el('button', 'run', '▶ Run');
  runButton.title = 'Run the statement under the cursor (Ctrl+Enter)';
  const csvLink = el('a', 'export disabled', 'CSV');
  csvLink.id = 'export-csv';
  const parquetLink = el('a', 'export disabled', 'Parquet');
  parquetLink.id = 'export-parquet';
  const exportBox = el('span', 'exports');
  exportBox.append(el('span', 'muted', 'Export:'), csvLink, parquetLink);
  header.append(el('h1', '', 'svcdb'), runButton, exportBox);

  const side = el('aside', 'side');
  const main = el('main', 'work');
  const editorBox = el('div', 'editor');
  const resultBar = el('div', 'result-bar');
  const tabs = el('div', 'tabs');
  const gridTab = el('button', 'tab on', 'Grid');
  gridTab.dataset.view = 'grid';
  const chartTab = el('button', 'tab', 'Chart');
  chartTab.dataset.view = 'chart';
  tabs.append(gridTab, chartTab);
  const status = el('div', 'status');
  status.id = 'status';
  resultBar.append(tabs, status);
  const grid = new ResultGrid();
  const chart = new ResultChart();
  chart.element.hidden = true;
  const results = el('div', 'results');
  results.append(grid.element, chart.element);
  main.append(editorBox, resultBar, results);

  // Import: drop a file anywhere, or pick one.
  const importBox = el('section', 'import');
  const importHead = el('div', 'side-head');
  importHead.append(el('h2', '', 'Import CSV'));
  const drop = el('label', 'drop');
  const fileInput = el('input');
  fileInput.type = 'file';
  fileInput.accept = '.csv,.txt,.tsv,.gz,text/csv';
  drop.append(el('span', '', 'Drop a CSV file here or click to pick one'), fileInput);
  const progress = el('progress');
  progress.max = 1;
  progress.value = 0;
  progress.hidden = true;
  const report = el('div', 'import-report');
  importBox.append(importHead, drop, progress, report);

  const tableList = new TableList(
    (name) => {
      editor.setText(`select * from ${/^[A-Za-z_][\w]*$/.test(name) ? name : `"${name}"`} limit 1000;`);
      void run();
    },
    () => void refreshTables(),
  );
  const history = new QueryHistory((sql) => editor.setText(sql));
  side.append(tableList.element, importBox, history.element);
  app.append(header, side, main);
  document.body.append(app);

  const saved = loadHistory()[0]?.sql;
  const editor = createEditor(editorBox, saved ? `${saved};` : DEFAULT_SQL, () => void run());
  editor.view.focus();

  let view: 'grid' | 'chart' = 'grid';
  const setView = (v: 'grid' | 'chart'): void => {
    view = v;
    gridTab.classList.toggle('on', v === 'grid');
    chartTab.classList.toggle('on', v === 'chart');
    grid.element.hidden = v !== 'grid';
    chart.element.hidden = v !== 'chart';
    if (v === 'chart') chart.refresh();
  };
  gridTab.addEventListener('click', () => setView('grid'));
  chartTab.addEventListener('click', () => setView('chart'));

  const setExports = (query: string | null): void => {
    for (const [a, fmt] of [
      [csvLink, 'csv'],
      [parquetLink, 'parquet'],
    ] as const) {
      if (query === null) {
        a.removeAttribute('href');
        a.classList.add('disabled');
      } else {
        a.href = exportUrl(query, fmt);
        a.download = '';
        a.classList.remove('disabled');
      }
    }
  };

  async function refreshTables(): Promise<void> {
    try {
      const tables = await loadTables();
      tableList.show(tables);
      editor.setSchema(schemaOf(tables));
    } catch (e) {
      tableList.showError(e instanceof Error ? e.message : String(e));
    }
  }

  let running: AbortController | null = null;
  /** Statements run so far, on #status as data-runs: a script (the browser test) waits for it to grow. */
  let runs = 0;
  async function run(): Promise<void> {
    const stmt = editor.currentStatement();
    if (stmt.text.trim() === '') return;
    running?.abort();
    const controller = new AbortController();
    running = controller;
    editor.markError(null);
    status.className = 'status busy';
    status.textContent = 'Running…';
    runButton.disabled = true;
    try {
      const r = await execute(stmt.text, controller.signal);
      if (r.kind === 'rows') {
        showRows(r);
        history.add(stmt.text, true, `${r.count} rows`);
        setExports(stmt.text);
      } else {
        grid.clear();
        chart.show(null);
        status.className = 'status ok';
        status.textContent = `${r.what}${r.updated !== undefined ? `, ${r.updated} rows updated` : ''} in ${r.elapsedMs.toFixed(1)} ms`;
        history.add(stmt.text, true, r.what);
        setExports(null);
        void refreshTables(); // DDL and inserts change the list
      }
    } catch (e) {
      if (controller.signal.aborted) return;
      const err = e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : String(e), 0, null);
      status.className = 'status error';
      status.textContent = err.position === null ? err.message : `${err.message} (at position ${err.position})`;
      status.dataset.position = err.position === null ? '' : String(stmt.from + err.position);
      if (err.position !== null) editor.markError(stmt.from + err.position, err.message);
      history.add(stmt.text, false, err.message);
    } finally {
      if (running === controller) running = null;
      runButton.disabled = false;
      status.dataset.runs = String(++runs);
    }
  }

  function showRows(r: QueryResult): void {
    grid.show(r.columns, r.dataset);
    chart.show(r);
    const t = r.timings;
    const shown = r.dataset.length < r.count ? ` (first ${r.dataset.length.toLocaleString('en-US')} shown)` : '';
    status.className = 'status ok';
    status.textContent =
      `${r.count.toLocaleString('en-US')} row${r.count === 1 ? '' : 's'}${shown}` +
      (t ? ` · compile ${ms(t.compiler)} · execute ${ms(t.execute)}` : '') +
      ` · round trip ${r.elapsedMs.toFixed(1)} ms`;
    status.dataset.rows = String(r.count);
    chartTab.disabled = chartPlan(r.columns, r.timestamp) === null;
    if (view === 'chart' && chartTab.disabled) setView('grid');
  }

  runButton.addEventListener('click', () => void run());

  async function upload(file: File): Promise<void> {
    progress.hidden = false;
    progress.value = 0;
    report.className = 'import-report';
    report.textContent = `Uploading ${file.name}…`;
    try {
      const r = await importCsv(file, (f) => (progress.value = f));
      progress.value = 1;
      showReport(r);
      await refreshTables();
    } catch (e) {
      report.className = 'import-report error';
      report.textContent = e instanceof Error ? e.message : String(e);
    }
  }

  function showReport(r: ImportReport): void {
    report.replaceChildren();
    const ok = r.status === 'OK';
    report.className = `import-report ${ok ? 'ok' : 'error'}`;
    const line = ok
      ? `${r.location}: ${(r.rowsImported ?? 0).toLocaleString('en-US')} rows imported, ${(r.rowsRejected ?? 0).toLocaleString('en-US')} rejected` +
        (r.partitionBy ? ` · PARTITION BY ${r.partitionBy}` : '')
      : r.status;
    report.append(el('p', 'report-line', line));
    if (r.columns?.length) {
      const table = el('table');
      const head = el('tr');
      for (const h of ['column', 'type', 'errors']) head.append(el('th', '', h));
      table.append(head);
      for (const c of r.columns) {
        const tr = el('tr');
        tr.append(el('td', '', c.name), el('td', '', c.type), el('td', c.errors > 0 ? 'error' : '', String(c.errors)));
        table.append(tr);
      }
      report.append(table);
    }
    for (const w of r.warnings ?? []) report.append(el('p', 'warning', w));
  }

  fileInput.addEventListener('change', () => {
    const f = fileInput.files?.[0];
    if (f) void upload(f);
    fileInput.value = '';
  });
  // The whole page takes a dropped file; without this the browser would open it.
  document.addEventListener('dragover', (e) => {
    if (e.dataTransfer?.types.includes('Files')) {
      e.preventDefault();
      app.classList.add('dragging');
    }
  });
  document.addEventListener('dragleave', (e) => {
    if (e.relatedTarget === null) app.classList.remove('dragging');
  });
  document.addEventListener('drop', (e) => {
    app.classList.remove('dragging');
    const f = e.dataTransfer?.files[0];
    if (!f) return;
    e.preventDefault();
    void upload(f);
  });

  void refreshTables();
  grid.clear();
  status.textContent = `Ready. Results show up to ${ROW_LIMIT.toLocaleString('en-US')} rows; export has them all.`;
}

main();
