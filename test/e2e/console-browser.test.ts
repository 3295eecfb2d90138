// The web console at `/`, driven in a real headless Chromium (Debian's chromium, installed by
// scripts/install-test-deps.sh) through playwright-core against a real server process: typing
// and running a query, the grid, the chart, CSV import by file input and by drop, the error
// marker, completion, export links, history, authentication, and a server without the built
// console. SVCDB_CONSOLE_SCREENSHOT=<file.png> also saves a screenshot of the chart (docs/console.png).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const CHROMIUM = process.env.SVCDB_CHROMIUM ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

async function launch(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: run scripts/install-test-deps.sh as root (it installs Debian's chromium)`,
  );
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

/** Replaces the editor's text by typing it (new lines after Escape, so no completion is taken). */
async function typeSql(page: Page, sql: string): Promise<void> {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  const lines = sql.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
    }
    await page.keyboard.type(lines[i]!);
  }
  await page.keyboard.press('Escape');
}

/** Runs the statement under the cursor with Ctrl+Enter (or the button) and waits for its end. */
async function run(page: Page, how: 'keys' | 'button' = 'keys'): Promise<string> {
  const before = Number((await page.getAttribute('#status', 'data-runs')) ?? '0');
  if (how === 'keys') await page.keyboard.press('Control+Enter');
  else await page.click('button.run');
  await page.waitForFunction((n) => Number(document.querySelector('#status')?.getAttribute('data-runs')) > n, before);
  return (await page.textContent('#status')) ?? '';
}

/** Cells of the grid rows in the DOM, in row order. */
function gridRows(page: Page): Promise<string[][]> {
  return page.$$eval('.grid-body .grid-row', (rows) =>
    rows
      .map((r) => ({
        y: new DOMMatrix(getComputedStyle(r).transform).m42,
        cells: [...r.children].map((c) => c.textContent ?? ''),
      }))
      .sort((a, b) => a.y - b.y)
      .map((r) => r.cells),
  );
}

/** Pixels of the chart's canvas close to an RGB colour. */
function pixelsOf(page: Page, rgb: readonly [number, number, number]): Promise<number> {
  return page.$eval(
    '.chart-plot canvas',
    (c, [r, g, b]) => {
      const canvas = c as HTMLCanvasElement;
      const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4)
        if (Math.abs(d[i]! - r) < 40 && Math.abs(d[i + 1]! - g) < 40 && Math.abs(d[i + 2]! - b) < 40 && d[i + 3]! > 100)
          n++;
      return n;
    },
    rgb,
  );
}

const BLUE = [0x1f, 0x77, 0xb4] as const; // the first series
const RED = [0xd6, 0x27, 0x28] as const; // the second

describe('web console in a headless Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const files = mkdtempSync(join(tmpdir(), 'svcdb-console-files-'));

  before(async () => {
    assert.ok(
      existsSync(join(REPO, 'dist/console/index.html')),
      'dist/console/ is missing: `npm run build` builds the console (tsc -p . alone does not)',
    );
    [server, browser] = await Promise.all([startServer(), launch()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    await page.goto(`${server.mainUrl}/`);
    await page.waitForSelector('.cm-content');
    assert.deepEqual(failures, []);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(files, { recursive: true, force: true });
  });

  test('serves the page and its hashed assets with their types and caching', async () => {
    const page0 = await fetch(`${server.mainUrl}/`);
    assert.equal(page0.status, 200);
    assert.equal(page0.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page0.headers.get('cache-control'), 'no-cache');
    const html = await page0.text();
    const js = /src="(\/console\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const css = /href="(\/console\/app-[A-Z0-9]+\.css)"/.exec(html)?.[1];
    assert.ok(js && css, html);
    const script = await fetch(server.mainUrl + js, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(script.headers.get('content-encoding'), 'gzip');
    assert.ok((await script.text()).length > 1000);
    const style = await fetch(server.mainUrl + css);
    assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
    const again = await fetch(server.mainUrl + css, { headers: { 'if-none-match': style.headers.get('etag')! } });
    assert.equal(again.status, 304);
    for (const p of ['/console/nope.js', '/console/%2e%2e/package.json', '/console/..%2fpackage.json'])
      assert.equal((await fetch(server.mainUrl + p)).status, 404, p);
    const head = await fetch(`${server.mainUrl}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal((await fetch(`${server.mainUrl}/`, { method: 'POST' })).status, 405);
    // The REST API is where it was.
    assert.equal((await fetch(`${server.mainUrl}/exec?query=select%201`)).status, 200);
  });

  test('runs a typed query with Ctrl+Enter and shows its rows, count and timings', async () => {
    await typeSql(page, 'select x, x * 2 as y from long_sequence(5)');
    const status = await run(page);
    assert.match(status, /^5 rows · compile [\d.]+ ms · execute [\d.]+ ms/);
    assert.deepEqual(await page.$$eval('.grid-head-row .grid-cell', (c) => c.map((e) => e.textContent)), [
      '#',
      'xLONG',
      'yLONG',
    ]);
    assert.deepEqual(await gridRows(page), [
      ['1', '1', '2'],
      ['2', '2', '4'],
      ['3', '3', '6'],
      ['4', '4', '8'],
      ['5', '5', '10'],
    ]);
  });

  test('keeps a large result fast: 200,000 rows matched, only the rows in view in the DOM', async () => {
    await typeSql(page, 'select x, rnd_double() r from long_sequence(200000)');
    const status = await run(page, 'button');
    assert.match(status, /^200,000 rows \(first 100,000 shown\)/);
    const rows = await gridRows(page);
    assert.ok(rows.length > 10 && rows.length < 100, `${rows.length} rows in the DOM`);
    assert.equal(rows[0]![0], '1');
    await page.$eval('.grid', (g) => (g.scrollTop = g.scrollHeight));
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.grid-body .grid-row .grid-num')].some((c) => c.textContent === '100000'),
    );
    assert.ok((await gridRows(page)).length < 100);
  });

  test('charts a result with a timestamp: a canvas with each series, line and bar, zoom', async () => {
    await typeSql(page, "select timestamp_sequence('2024-01-01', 3600000000) ts, x a, 50 - x b from long_sequence(48)");
    await run(page);
    await page.click('button.tab[data-view=chart]');
    await page.waitForSelector('.chart-plot canvas');
    assert.deepEqual(await page.$$eval('.u-legend .u-label', (l) => l.map((e) => e.textContent)), ['ts', 'a', 'b']);
    assert.match((await page.textContent('.chart-note')) ?? '', /2 series over 48 points by ts/);
    assert.ok((await pixelsOf(page, BLUE)) > 50, 'series a drawn');
    assert.ok((await pixelsOf(page, RED)) > 50, 'series b drawn');
    const full = (await page.getAttribute('.chart', 'data-x-range'))!.split(',').map(Number);
    assert.deepEqual(full, [Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 0, 2, 23) / 1000]);

    await page.click('.chart-kinds button[data-kind=bar]');
    await page.waitForSelector('.chart-plot canvas');
    assert.ok((await pixelsOf(page, BLUE)) > 200, 'bars of a drawn');

    // Drag across the middle of the plot: the x range narrows to it.
    const box = (await page.$('.u-over'))!;
    const b = (await box.boundingBox())!;
    await page.mouse.move(b.x + b.width * 0.25, b.y + b.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width * 0.5, b.y + b.height / 2, { steps: 5 });
    await page.mouse.up();
    const zoomed = (await page.getAttribute('.chart', 'data-x-range'))!.split(',').map(Number);
    assert.ok(zoomed[0]! > full[0]! && zoomed[1]! < full[1]!, `zoomed to ${zoomed} from ${full}`);
    await page.click('.chart-kinds button[data-kind=line]');
    await page.click('button.tab[data-view=grid]');
  });

  test('imports a CSV file picked in the file input and one dropped on the page', async () => {
    const csv = join(files, 'sensors.csv');
    writeFileSync(
      csv,
      'ts,sensor,temp\n2024-01-01T00:00:00.000000Z,north,20.5\n2024-01-01T01:00:00.000000Z,south,21.0\n2024-01-01T02:00:00.000000Z,north,19.75\n',
    );
    await page.setInputFiles('.drop input[type=file]', csv);
    await page.waitForSelector('.import-report.ok');
    assert.match(
      (await page.textContent('.import-report .report-line')) ?? '',
      /^sensors: 3 rows imported, 0 rejected/,
    );
    assert.deepEqual(
      await page.$$eval('.import-report tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent))),
      [
        ['column', 'type', 'errors'],
        ['ts', 'TIMESTAMP', '0'],
        ['sensor', 'VARCHAR', '0'],
        ['temp', 'DOUBLE', '0'],
      ],
    );
    assert.equal(await page.$eval('.import progress', (p) => (p as HTMLProgressElement).value), 1);
    await page.waitForSelector('details[data-table=sensors]');
    assert.match((await page.textContent('details[data-table=sensors] .table-meta')) ?? '', /^3 rows · NONE$/);
    await page.click('details[data-table=sensors] summary');
    assert.deepEqual(await page.$$eval('details[data-table=sensors] .columns li', (l) => l.map((e) => e.textContent)), [
      'tsTIMESTAMP',
      'sensorVARCHAR',
      'tempDOUBLE',
    ]);

    const dt = await page.evaluateHandle(() => {
      const t = new DataTransfer();
      t.items.add(new File(['k,v\n1,one\n2,two\n'], 'dropped.csv', { type: 'text/csv' }));
      return t;
    });
    await page.dispatchEvent('.drop', 'dragover', { dataTransfer: dt });
    await page.dispatchEvent('.drop', 'drop', { dataTransfer: dt });
    await page.waitForFunction(() =>
      /^dropped: 2 rows imported/.test(document.querySelector('.report-line')?.textContent ?? ''),
    );
    await page.waitForSelector('details[data-table=dropped]');
    assert.match((await page.textContent('details[data-table=dropped] .table-meta')) ?? '', /^2 rows/);
  });

  test('completes keywords, functions, tables and columns, and colours keywords and functions', async () => {
    const offered = async (typed: string): Promise<string[]> => {
      await typeSql(page, typed);
      await page.keyboard.press('Control+Space');
      await page.waitForSelector('.cm-tooltip-autocomplete');
      const labels = await page.$$eval('.cm-tooltip-autocomplete li', (l) =>
        l.map((e) => e.querySelector('.cm-completionLabel')?.textContent ?? ''),
      );
      await page.keyboard.press('Escape');
      return labels;
    };
    assert.ok((await offered('sel')).includes('select'));
    assert.ok((await offered('select rnd_dou')).includes('rnd_double'));
    assert.ok((await offered('select * from sens')).includes('sensors'));
    assert.ok((await offered('select tem')).includes('temp'));
    assert.ok((await offered('select sensors.sen')).includes('sensor'));

    await typeSql(page, 'select rnd_double() from sensors');
    const colour = (word: string): Promise<string> =>
      page.$$eval('.cm-line span', (spans, w) => getComputedStyle(spans.find((s) => s.textContent === w)!).color, word);
    assert.equal(await colour('select'), 'rgb(124, 58, 237)');
    assert.equal(await colour('rnd_double'), 'rgb(37, 99, 235)');
  });

  test('marks an error at its position in the statement under the cursor', async () => {
    await typeSql(page, 'select 1;\nselect x, nosuch from long_sequence(3)');
    const status = await run(page);
    assert.match(status, /Invalid column: nosuch \(at position 10\)/);
    await page.waitForSelector('.cm-lintRange-error');
    assert.equal(await page.textContent('.cm-lintRange-error'), 'nosuch');
    assert.equal(await page.getAttribute('#status', 'data-position'), String('select 1;\n'.length + 10));
    // Editing clears the marker.
    await page.keyboard.type(' ');
    await page.waitForSelector('.cm-lintRange-error', { state: 'detached' });
  });

  test('links the last query to CSV and Parquet exports', async () => {
    const q = "select x, 'a' || x s from long_sequence(3)";
    await typeSql(page, q);
    await run(page);
    for (const [id, fmt] of [
      ['#export-csv', 'csv'],
      ['#export-parquet', 'parquet'],
    ] as const) {
      const href = (await page.getAttribute(id, 'href'))!;
      const url = new URL(href, server.mainUrl);
      assert.equal(url.pathname, '/exp');
      assert.equal(url.searchParams.get('query'), q);
      assert.equal(url.searchParams.get('fmt'), fmt);
      const res = await fetch(url);
      assert.equal(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      if (fmt === 'csv') assert.equal(body.toString(), '"x","s"\n1,"a1"\n2,"a2"\n3,"a3"\n');
      else assert.equal(body.subarray(0, 4).toString(), 'PAR1');
    }
  });

  test('keeps the query history in localStorage across a reload', async () => {
    await page.reload();
    await page.waitForSelector('.history-list li');
    const history = await page.$$eval('.history-list li', (l) => l.map((e) => e.textContent));
    assert.equal(history[0], "select x, 'a' || x s from long_sequence(3)");
    assert.ok(history.includes('select x, nosuch from long_sequence(3)'));
    assert.equal(await page.textContent('.cm-content'), "select x, 'a' || x s from long_sequence(3);");
    await page.click('.history-list li:nth-child(2)');
    assert.equal(await page.textContent('.cm-content'), history[1]);
  });

  test('shows the demo chart (saved as a screenshot when SVCDB_CONSOLE_SCREENSHOT names a file)', async () => {
    await typeSql(
      page,
      "select timestamp_sequence('2024-01-01', 60000000) ts, 20 + 5 * sin(x / 60.0) temperature,\n  12 + 3 * cos(x / 45.0) + rnd_double() humidity from long_sequence(720)",
    );
    assert.match(await run(page), /^720 rows/);
    await page.click('details[data-table=sensors] summary');
    await page.click('button.tab[data-view=chart]');
    await page.waitForSelector('.chart-plot canvas');
    assert.ok((await pixelsOf(page, RED)) > 50);
    const out = process.env.SVCDB_CONSOLE_SCREENSHOT;
    if (out) await page.screenshot({ path: out });
  });
});

describe('web console with basic authentication on', () => {
  let server: ServerProcess;
  let browser: Browser;
  const auth = { username: 'admin', password: 'quest' };

  before(async () => {
    [server, browser] = await Promise.all([
      startServer({ env: { SVC_HTTP_USER: auth.username, SVC_HTTP_PASSWORD: auth.password } }),
      launch(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('answers 401 to the page, its assets and its API calls without credentials', async () => {
    const basic = { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
    const html = await (await fetch(`${server.mainUrl}/`, { headers: basic })).text();
    const js = /src="(\/console\/[^"]+)"/.exec(html)?.[1];
    assert.ok(js, html);
    for (const p of ['/', js, '/exec?query=select%201', '/exp?query=select%201']) {
      const res = await fetch(server.mainUrl + p);
      assert.equal(res.status, 401, p);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /);
      assert.equal((await fetch(server.mainUrl + p, { headers: basic })).status, 200, p);
    }
    // A browser with no credentials to answer the challenge with gets no page.
    const page = await browser.newPage();
    await assert.rejects(page.goto(`${server.mainUrl}/`), /ERR_INVALID_AUTH_CREDENTIALS/);
    await page.close();
  });

  test('works in a browser that signs in', async () => {
    const context = await browser.newContext({ httpCredentials: auth });
    const page = await context.newPage();
    assert.equal((await page.goto(`${server.mainUrl}/`))?.status(), 200);
    await page.waitForSelector('.cm-content');
    // The console's own calls carry the credentials; the same call without them is refused.
    const statuses = await page.evaluate(async () => {
      const url = '/exec?query=select%201';
      return [(await fetch(url)).status, (await fetch(url, { credentials: 'omit' })).status];
    });
    assert.deepEqual(statuses, [200, 401]);
    await typeSql(page, 'create table t (ts timestamp, v double) timestamp(ts) partition by day');
    assert.match(await run(page), /^DDL OK/);
    await page.waitForSelector('details[data-table=t]');
    assert.match((await page.textContent('details[data-table=t] .table-meta')) ?? '', /^0 rows · DAY$/);
    await typeSql(page, 'select x from long_sequence(3)');
    assert.match(await run(page), /^3 rows/);
    assert.equal((await gridRows(page)).length, 3);
    await context.close();
  });
});

test('a server without the built console says so at / and serves its API', async () => {
  // A copy of the build without dist/console, as after `tsc -p .` alone.
  const copy = mkdtempSync(join(tmpdir(), 'svcdb-nobuild-'));
  try {
    for (const d of ['dist/lib', 'dist/bin', 'conf']) cpSync(join(REPO, d), join(copy, d), { recursive: true });
    cpSync(join(REPO, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(REPO, 'node_modules'), join(copy, 'node_modules'));
    const server = await startServer({ cli: join(copy, 'dist/bin/svcdb.js') });
    try {
      const res = await fetch(`${server.mainUrl}/`);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      const text = await res.text();
      assert.match(text, /The web console is not built/);
      assert.match(text, /npm run build/);
      assert.equal((await fetch(`${server.mainUrl}/exec?query=select%201`)).status, 200);
      assert.equal(server.child.exitCode, null);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
