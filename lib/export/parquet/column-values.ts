// One column of one row group, gathered from the query's batches into
// contiguous typed arrays in Parquet's physical representation: a defined
// flag per row (NULL sentinels become 0) and the non-NULL values packed. The
// arrays are reused from one row group to the next.

/** How the non-NULL values are held. */
export type ValueKind = 'bool' | 'i32' | 'i64' | 'f32' | 'f64' | 'bytes' | 'fixed' | 'symbol';

export class ChunkValues {
  rows = 0;
  /** Non-NULL values. */
  count = 0;
  hasNulls = false;
  /** Per row: 1 defined, 0 NULL (valid when hasNulls). */
  defined: Uint8Array;
  /** bool (0/1) and i32 values; symbol: indices into `dict`. */
  i32: Int32Array;
  /** i64 values as (lo, hi) pairs. */
  i64: Int32Array;
  f32: Float32Array;
  f64: Float64Array;
  /** bytes: value k is bytes[offsets[k], offsets[k + 1]); fixed: value k is bytes[k * width, (k + 1) * width). */
  bytes: Uint8Array;
  offsets: Int32Array;
  byteLength = 0;
  /**
   * Array (LIST) columns: per level entry (one per element, or per NULL or empty
   * array or sub-array) its repetition and definition level; `rows` counts records.
   */
  rep = new Uint8Array(0);
  def = new Uint8Array(0);
  levels = 0;
  /** symbol, and bytes while `coded`: the chunk's dictionary (UTF-8), in first-seen order. */
  dict: Uint8Array[] = [];
  dictBytes = 0;
  /**
   * bytes: the values so far were gathered as indices into `dict` (in `i32`) from text vectors
   * with dictionary codes, and `bytes`/`offsets` are not filled; decodeKeys() fills them.
   */
  coded = false;

  constructor(
    readonly kind: ValueKind,
    readonly width = 0,
    capacity = 1024,
  ) {
    const cap = Math.max(16, capacity);
    this.defined = new Uint8Array(cap);
    this.i32 = new Int32Array(kind === 'bool' || kind === 'i32' || kind === 'symbol' ? cap : 0);
    this.i64 = new Int32Array(kind === 'i64' ? cap * 2 : 0);
    this.f32 = new Float32Array(kind === 'f32' ? cap : 0);
    this.f64 = new Float64Array(kind === 'f64' ? cap : 0);
    this.bytes = new Uint8Array(kind === 'bytes' ? cap * 8 : kind === 'fixed' ? cap * width : 0);
    this.offsets = new Int32Array(kind === 'bytes' ? cap + 1 : 0);
  }

  reset(): void {
    this.rows = 0;
    this.count = 0;
    this.hasNulls = false;
    this.levels = 0;
    this.byteLength = 0;
    this.dict = [];
    this.dictBytes = 0;
    this.coded = false;
  }

  /** Room for `n` more values in `i32` (bytes kept as dictionary indices: `coded`). */
  reserveKeys(n: number): void {
    const need = this.count + n;
    if (need > this.i32.length) this.i32 = grow(this.i32, capacity(this.i32.length, need));
  }

  /** A coded bytes chunk's values written out as bytes and offsets (it is then an ordinary bytes chunk). */
  decodeKeys(): void {
    if (!this.coded) return;
    this.coded = false;
    const keys = this.i32,
      dict = this.dict,
      n = this.count;
    let total = 0;
    for (let k = 0; k < n; k++) total += dict[keys[k]!]!.length;
    this.byteLength = 0;
    this.reserveBytes(total);
    const b = this.bytes,
      o = this.offsets;
    let at = 0;
    o[0] = 0;
    for (let k = 0; k < n; k++) {
      const e = dict[keys[k]!]!;
      b.set(e, at);
      at += e.length;
      o[k + 1] = at;
    }
    this.byteLength = at;
  }

  /** Room for `n` more rows (and values). */
  reserve(n: number): void {
    const need = this.rows + n;
    if (need <= this.defined.length) return;
    let cap = this.defined.length * 2;
    while (cap < need) cap *= 2;
    this.defined = grow(this.defined, cap);
    if (this.i32.length > 0) this.i32 = grow(this.i32, cap);
    if (this.i64.length > 0) this.i64 = grow(this.i64, cap * 2);
    if (this.f32.length > 0) this.f32 = grow(this.f32, cap);
    if (this.f64.length > 0) this.f64 = grow(this.f64, cap);
    if (this.kind === 'fixed') this.bytes = grow(this.bytes, cap * this.width);
    if (this.offsets.length > 0) this.offsets = grow(this.offsets, cap + 1);
  }

  /** Room for one more level entry and, f64 columns, one more value. */
  reserveLevel(): void {
    if (this.levels >= this.rep.length) {
      const cap = Math.max(1024, this.rep.length * 2);
      this.rep = grow(this.rep, cap);
      this.def = grow(this.def, cap);
    }
    if (this.count >= this.f64.length) this.f64 = grow(this.f64, Math.max(1024, this.f64.length * 2));
  }

  /** Room for `n` more bytes of byte-array values. */
  reserveBytes(n: number): void {
    const need = this.byteLength + n;
    if (need > this.bytes.length) this.bytes = grow(this.bytes, capacity(this.bytes.length, need));
  }
}

/** A doubled capacity (1024 at least) that holds `need`. */
function capacity(length: number, need: number): number {
  let cap = Math.max(1024, length * 2);
  while (cap < need) cap *= 2;
  return cap;
}

type Growable = Uint8Array | Int32Array | Float32Array | Float64Array;
function grow<T extends Growable>(a: T, cap: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}
