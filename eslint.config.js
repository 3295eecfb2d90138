// ESLint for the TypeScript sources. Everything gets the recommended rules of
// ESLint and typescript-eslint; lib/ and bin/ (the code that runs in the server)
// also get the type-aware promise rules, because a promise nobody awaits is an
// unhandled rejection or a lost error there. Formatting is Prettier's
// (`npm run lint` runs both); tsc's noUnusedLocals already reports unused names.
import { join } from 'node:path';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './scripts/layers.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'svcdb-data/**', 'fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
    rules: {
      // A leading underscore marks a name kept on purpose (a destructured slot, a callback parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
    },
  },
  {
    // The web console runs in the browser (bundled by scripts/build-console.mjs).
    files: ['console/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The JSON of Prometheus's and Alertmanager's APIs, which the tests read field by field.
    files: ['test/helpers/prometheus.ts', 'test/helpers/alertmanager.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['lib/**/*.ts', 'bin/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // The layer rule of ARCHITECTURE.md (test/layers.test.ts checks the same on every import).
    files: ['lib/**/*.ts'],
    plugins: { svcdb: layersPlugin(join(import.meta.dirname, 'lib')) },
    rules: { 'svcdb/layers': 'error' },
  },
);
