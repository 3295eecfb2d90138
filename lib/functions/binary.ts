// BINARY to text (QuestDB's Binary functions page): base64(data, maxLength) encodes at most
// maxLength bytes of the value (a constant above 0), to_char(data) is a hex dump of 16 bytes a
// line, each line led by its offset.
import { Buffer } from 'node:buffer';
import type { ColumnVector, VarVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { argError, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar } from './signature.js';
import { TextOut } from './text-out.js';

/** Most bytes base64() encodes whatever maxLength says: QuestDB's binarydata.encoding.maxlength default. */
export const BASE64_MAX_BYTES = 32768;

const binary = (t: SqlType): SqlType | null => (t === 'BINARY' || t === 'NULL' ? 'BINARY' : null);

/** Row i's bytes, or null for NULL. */
function bytesAt(v: ColumnVector, i: number): Uint8Array | null {
  const b = v as VarVector;
  if (b.nulls !== null && b.nulls[i]) return null;
  return b.bytes.subarray(b.offsets[i], b.offsets[i + 1]);
}

const HEX = Array.from({ length: 256 }, (_, k) => k.toString(16).padStart(2, '0'));

/**
 * A hex dump as QuestDB's to_char(binary) prints one: per 16 bytes a line of the 8-digit
 * lower-case hex offset then ` xx` per byte; lines joined by \n, none after the last.
 */
export function hexDump(b: Uint8Array): string {
  const lines: string[] = [];
  for (let at = 0; at < b.length; at += 16) {
    let line = at.toString(16).padStart(8, '0');
    const end = Math.min(b.length, at + 16);
    for (let k = at; k < end; k++) line += ` ${HEX[b[k]!]!}`;
    lines.push(line);
  }
  return lines.join('\n');
}

const toCharKernel: Kernel = (args, n, kx) => {
  const out = new TextOut('STRING', n, kx);
  for (let i = 0; i < n; i++) {
    const b = bytesAt(args[0]!, i);
    out.set(i, b === null ? null : hexDump(b));
  }
  return out.vector();
};

/** base64 of the first maxLength bytes; a NULL value is the empty string (QuestDB writes nothing for it). */
function base64Kernel(maxLength: number): Kernel {
  const limit = Math.min(maxLength, BASE64_MAX_BYTES);
  return (args, n, kx) => {
    const out = new TextOut('STRING', n, kx);
    for (let i = 0; i < n; i++) {
      const b = bytesAt(args[0]!, i);
      out.set(i, b === null ? '' : Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, limit)).toString('base64'));
    }
    return out.vector();
  };
}

export function registerBinary(registry: FunctionRegistry): void {
  defineScalar(registry, 'base64', [
    {
      args: [binary, accept.int],
      build: () => ({
        type: 'STRING',
        kernel: base64Kernel(BASE64_MAX_BYTES),
        bind: (args) => {
          const m = args[1]!;
          if (m.value === undefined) throw argError('constant expected', m.pos);
          if (!(typeof m.value === 'number' && m.value > 0))
            throw argError('maxLength has to be greater than 0', m.pos);
          return { kernel: base64Kernel(m.value) };
        },
      }),
    },
  ]);
  defineScalar(registry, 'to_char', [{ args: [binary], build: () => ({ type: 'STRING', kernel: toCharKernel }) }]);
}
