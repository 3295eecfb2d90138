// A preload (`node --import <this file's .js>`) that makes the packages named in
// TEST_HIDDEN_PACKAGES (comma-separated) fail to resolve, as when an optional
// dependency was not installed: require() of one throws MODULE_NOT_FOUND with Node's own wording.
// Worker threads inherit the preload and the variable; svcdb's code has no seam of its own.
import Module from 'node:module';

const hidden = new Set((process.env.TEST_HIDDEN_PACKAGES ?? '').split(',').filter((p) => p !== ''));
const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const resolve = M._resolveFilename;
M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  if (hidden.has(request) || hidden.has(request.split('/')[0]!)) {
    const e = new Error(`Cannot find module '${request}'`) as NodeJS.ErrnoException;
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  return resolve.call(this, request, ...rest);
};
