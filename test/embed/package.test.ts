// The package as npm ships it: `npm pack` of this checkout, installed into an
// empty folder (with stream-chain, as a user of the example would); its CLI
// answers --version, examples/csv-to-parquet.mjs copied there runs against
// the installed package, and a TypeScript file type-checks against its
// declarations through the exports map. Dependencies come from npm's cache when they are
// there (npm ci filled it), else from the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { makeRoot } from '../helpers/server-process.js';

const repo = (rel: string): string => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const run = promisify(execFile);
const npm = (args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> =>
  run('npm', args, {
    cwd,
    maxBuffer: 64 << 20,
    env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' },
  });

test(
  'npm pack -> install into an empty folder -> an example runs and the types check',
  { timeout: 300_000 },
  async () => {
    const work = makeRoot();
    const { stdout } = await npm(['pack', '--json', '--pack-destination', work], repo(''));
    const packed = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const tarball = join(work, packed[0]!.filename);
    const files = packed[0]!.files.map((f) => f.path);
    assert.ok(
      files.includes('dist/lib/index.js') &&
        files.includes('dist/lib/index.d.ts') &&
        files.includes('dist/bin/svcdb.js'),
      'the library, its types and the CLI are packed',
    );
    assert.ok(
      !files.some((f) => f.startsWith('dist/test/') || f.startsWith('dist/benchmarks/')),
      'tests and benchmarks are not packed',
    );

    const app = join(work, 'app');
    await run('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'etl-app', private: true, type: 'module' }));
    await npm(['install', '--prefer-offline', '--no-save', tarball, 'stream-chain@^4.4.1'], app);
    assert.ok(existsSync(join(app, 'node_modules/svcdb/package.json')));
    // The CLI ships in the same package.
    const version = JSON.parse(readFileSync(repo('package.json'), 'utf8')) as { version: string };
    const cli = await run(join(app, 'node_modules/.bin/svcdb'), ['--version'], { cwd: app });
    assert.match(cli.stdout, new RegExp(version.version.replace(/\./g, '\\.')));

    // The example, as a user would copy it into their project.
    copyFileSync(repo('examples/csv-to-parquet.mjs'), join(app, 'etl.mjs'));
    const out = join(app, 'out.parquet');
    const r = await run(process.execPath, ['etl.mjs', repo('fixtures/trades-sample.csv'), out, "sym = 'MSFT'"], {
      cwd: app,
    });
    assert.match(r.stderr, /2000 rows read, 0 rejected/);
    const b = readFileSync(out);
    const rows = await parquetReadObjects({ file: new Uint8Array(b).buffer, compressors });
    const want = readFileSync(repo('fixtures/trades-sample.csv'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(',MSFT,')).length;
    assert.equal(rows.length, want);
    assert.ok(rows.every((row) => row.sym === 'MSFT'));

    // The declarations, through the exports map, as a TypeScript user sees them.
    writeFileSync(
      join(app, 'check.ts'),
      [
        "import { openDatabase, csvToBatches, where, batchesToParquet, batchRows, type RecordBatch, type Row, type ImportResult } from 'svcdb';",
        "const db = openDatabase('./data');",
        "const q = db.query('select 1');",
        'const names: string[] = q.fields.map((f) => f.name);',
        'async function f(b: RecordBatch): Promise<Row[]> { const r: ImportResult = await db.importCsv(Buffer.from(""), { name: "t" }); void r; return batchRows(b); }',
        "const s = csvToBatches({ timestamp: 'ts' }).pipe(where('x > 1')).pipe(batchesToParquet({ compression_codec: 'zstd' }));",
        'void names; void f; void s;',
        '// @ts-expect-error: an unknown atomicity is a type error',
        "csvToBatches({ atomicity: 'sometimes' });",
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [repo('node_modules/@types')],
        },
        files: ['check.ts'],
      }),
    );
    await run(process.execPath, [repo('node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: app }).catch(
      (e: { stdout?: string; message: string }) => {
        assert.fail(`tsc against the installed package failed: ${e.stdout ?? e.message}`);
      },
    );
  },
);
