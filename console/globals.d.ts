// Inlined by scripts/build-console.mjs (esbuild define): the words the editor highlights and completes.
declare const __SQL_WORDS__: {
  readonly keywords: readonly string[];
  readonly functions: readonly string[];
  readonly types: readonly string[];
};

// esbuild bundles imported CSS into app-<hash>.css.
declare module '*.css';
