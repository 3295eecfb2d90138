// LZO, a deprecated Parquet codec, through the optional package lzo (it builds with make and
// g++, so an install may go without it): loaded on first use; when it is not installed, asking
// for LZO (an export's compression_codec, COPY TO, read_parquet of an LZO file) is refused saying so.
import { createRequire } from 'node:module';

export interface LzoPackage {
  compress(data: Buffer): Buffer;
  decompress(data: Buffer, outputLength: number): Buffer;
}

const require = createRequire(import.meta.url);
let loaded: LzoPackage | undefined;

/** The lzo package; throws an Error whose message says why it is not there (not installed, or failed to load). */
export function lzoPackage(): LzoPackage {
  if (loaded !== undefined) return loaded;
  try {
    loaded = require('lzo') as LzoPackage;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Error(
      err.code === 'MODULE_NOT_FOUND' && err.message.includes("'lzo'")
        ? 'LZO needs the optional package lzo, which is not installed on this server (`npm install lzo` adds it; it builds with make and g++)'
        : `LZO needs the package lzo, which cannot be loaded on this server (${err.message.split('\n')[0]})`,
      { cause: e },
    );
  }
  return loaded;
}
