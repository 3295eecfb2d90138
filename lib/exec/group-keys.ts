// Key columns -> one dense id per row (0, 1, 2... in first-seen order), the
// grouping of GROUP BY, DISTINCT, set operations and LATEST ON. Text keys are
// hashed on their bytes (or mapped once per dictionary code), numbers on their
// double, other types by their text; several keys combine pairwise. No JS
// value is made per row except for the rare types of the last kind.
import type { ColumnVector } from '../core/column-vector.js';
import { isByteRows } from '../core/column-type.js';
import { isArrayType } from '../core/array-values.js';
import { asDoubles } from '../core/vec.js';
import { DoubleIds, PairIds, TextIds } from '../core/key-ids.js';
import type { SqlType } from '../core/sql-type.js';
import { rowKey } from './vectors.js';

/** One key column's values -> ids of its own. */
interface PartIds {
  assign(v: ColumnVector, n: number, out: Int32Array): void;
  bytes(): number;
  /** Ids given so far. */
  readonly size: number;
  /** Whether ids are given in the order rows show their values (0, 1, 2...): then they are the key ids as they are. */
  readonly inRowOrder: boolean;
}

class NumberPart implements PartIds {
  readonly #ids = new DoubleIds();
  readonly inRowOrder = true;

  get size(): number {
    return this.#ids.size;
  }

  assign(v: ColumnVector, n: number, out: Int32Array): void {
    const x = asDoubles(v);
    const ids = this.#ids;
    // A run of one value (sorted or clustered keys, SAMPLE BY buckets) looks its id up once; NaN (NULL) never equals the last value.
    let last = NaN,
      lastId = -1;
    for (let i = 0; i < n; i++) {
      const k = x[i]!;
      if (k !== last) {
        lastId = ids.id(k);
        last = k;
      }
      out[i] = lastId;
    }
  }

  bytes(): number {
    return this.#ids.bytes();
  }
}

/** Keys of the remaining types by their text (UUID, LONG256, GEOHASH, DECIMAL, TIMESTAMP_NS, arrays, BINARY). */
class ValuePart implements PartIds {
  readonly #ids = new Map<string, number>();
  readonly inRowOrder = true;
  #chars = 0;

  get size(): number {
    return this.#ids.size;
  }

  assign(v: ColumnVector, n: number, out: Int32Array): void {
    const cols = [v];
    for (let i = 0; i < n; i++) {
      const k = rowKey(cols, i);
      let id = this.#ids.get(k);
      if (id === undefined) {
        id = this.#ids.size;
        this.#ids.set(k, id);
        this.#chars += k.length;
      }
      out[i] = id;
    }
  }

  bytes(): number {
    return this.#ids.size * 64 + this.#chars * 2;
  }
}

const TEXT_TYPES: ReadonlySet<SqlType> = new Set<SqlType>(['STRING', 'VARCHAR', 'SYMBOL']);

function partFor(type: SqlType): PartIds {
  if (TEXT_TYPES.has(type)) return new TextIds();
  if (type === 'TIMESTAMP_NS' || type === 'BINARY' || type === 'NULL' || isArrayType(type) || isByteRows(type))
    return new ValuePart();
  return new NumberPart();
}

/** The ids of rows' keys, for key columns of the given types. */
export class GroupKeys {
  readonly #parts: PartIds[];
  readonly #pairs: PairIds[];
  #scratch = new Int32Array(0);
  /** One key: its part's id -> the key's id (-1: not seen in a row yet). */
  #remap = new Int32Array(0);
  /** Distinct keys seen so far: ids are 0..size-1. */
  size = 0;

  constructor(types: readonly SqlType[]) {
    if (types.length === 0) throw new Error('GroupKeys needs at least one key');
    this.#parts = types.map(partFor);
    this.#pairs = types.slice(1).map(() => new PairIds());
  }

  /** ids[i] = the key id of row i, for rows [0, n) of the key vectors (one per key type). */
  assign(keys: readonly ColumnVector[], n: number, ids: Int32Array): void {
    this.#parts[0]!.assign(keys[0]!, n, ids);
    if (keys.length > 1) {
      if (this.#scratch.length < n) this.#scratch = new Int32Array(n);
      const part = this.#scratch;
      for (let k = 1; k < keys.length; k++) {
        this.#parts[k]!.assign(keys[k]!, n, part);
        const pairs = this.#pairs[k - 1]!;
        for (let i = 0; i < n; i++) ids[i] = pairs.id(ids[i]!, part[i]!);
      }
      this.size = this.#pairs[keys.length - 2]!.size;
      return;
    }
    // One key: its part's ids may include values no row has shown yet (a dictionary's entries are
    // mapped all at once), so they are renumbered in the order rows show them, unless they already are.
    if (this.#parts[0]!.inRowOrder) {
      this.size = this.#parts[0]!.size;
      return;
    }
    const partSize = this.#parts[0]!.size;
    if (this.#remap.length < partSize) {
      const next = new Int32Array(Math.max(partSize, this.#remap.length * 2)).fill(-1);
      next.set(this.#remap);
      this.#remap = next;
    }
    const remap = this.#remap;
    let size = this.size;
    for (let i = 0; i < n; i++) {
      const k = ids[i]!;
      let g = remap[k]!;
      if (g < 0) g = remap[k] = size++;
      ids[i] = g;
    }
    this.size = size;
  }

  bytes(): number {
    let b = this.#scratch.byteLength + this.#remap.byteLength;
    for (const p of this.#parts) b += p.bytes();
    for (const p of this.#pairs) b += p.bytes();
    return b;
  }
}
