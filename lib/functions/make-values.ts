// Values assembled from parts (QuestDB's UUID, IPv4 and LONG256 helpers): to_uuid(lo, hi),
// to_long128(lo, hi) and to_long256(l0, l1, l2, l3) put LONG words side by side (least
// significant first, as stored), netmask('a.b.c.d/n') the IPv4 mask of a CIDR prefix length.
import { nullVector, type FixedVector } from '../core/column-vector.js';
import { pairsOf } from '../core/nanos.js';
import type { ColumnVector } from '../core/column-vector.js';
import { textAt } from '../core/vec.js';
import type { Kernel, FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';

/**
 * `words` LONG arguments as one value of 8 * words bytes per row, argument k at bytes 8k..8k+7.
 * The NULL of these types is every word at LONG's NULL, so all-NULL arguments give NULL as they are.
 */
function wordsKernel(type: 'UUID' | 'LONG128' | 'LONG256', words: number): Kernel {
  return (args, n) => {
    const out = nullVector(type, n) as FixedVector;
    const bytes = out.data as Uint8Array;
    const lanes = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
    for (let k = 0; k < words; k++) {
      const p = pairsOf(args[k]!);
      for (let i = 0; i < n; i++) {
        const at = 2 * (i * words + k);
        lanes[at] = p[2 * i]!;
        lanes[at + 1] = p[2 * i + 1]!;
      }
    }
    return out;
  };
}

function fromWords(type: 'UUID' | 'LONG128' | 'LONG256', words: number): Signature {
  return {
    args: new Array<typeof accept.long>(words).fill(accept.long),
    build: () => ({ type, kernel: wordsKernel(type, words) }),
  };
}

/**
 * The mask of the prefix length after '/' (0..32); text without '/' is a single address
 * (255.255.255.255); a prefix that is not a number in range is NULL. The address before
 * '/' is not looked at, as in QuestDB. /0 is 0.0.0.0, which is IPv4's NULL.
 */
export function netmaskOf(text: string): number {
  const slash = text.indexOf('/');
  if (slash < 0) return -1;
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,10}$/.test(prefix)) return 0;
  const bits = Number(prefix);
  if (bits > 32) return 0;
  return bits === 0 ? 0 : ~0 << (32 - bits);
}

function netmaskKernel(args: readonly ColumnVector[], n: number): ColumnVector {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const t = textAt(args[0]!, i);
    out[i] = t === null ? 0 : netmaskOf(t);
  }
  return { kind: 'fixed', type: 'IPV4', data: out };
}

export function registerMakeValues(registry: FunctionRegistry): void {
  defineScalar(registry, 'to_uuid', [fromWords('UUID', 2)]);
  defineScalar(registry, 'to_long128', [fromWords('LONG128', 2)]);
  defineScalar(registry, 'to_long256', [fromWords('LONG256', 4)]);
  defineScalar(registry, 'netmask', [{ args: [accept.text], build: () => ({ type: 'IPV4', kernel: netmaskKernel }) }]);
}
