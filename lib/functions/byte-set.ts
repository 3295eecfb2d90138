// A set of byte strings (UTF-8 text, UUID and LONG256 values) probed with a
// range of a larger buffer, so membership tests over a vector's rows need no
// string per row: open addressing over FNV-1a hashes, the keys' bytes kept in
// one buffer. IN lists of constants use it.

/** FNV-1a over bytes[s, e). */
function hash(bytes: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let k = s; k < e; k++) h = Math.imul(h ^ bytes[k]!, 0x01000193);
  return h >>> 0;
}

export class ByteSet {
  readonly #bytes: Uint8Array;
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;
  /** Key index + 1 per slot; 0 is empty. */
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** Number of distinct keys. */
  readonly size: number;

  /** The set of `keys` (byte strings; duplicates are kept once). */
  constructor(keys: readonly Uint8Array[]) {
    let total = 0;
    for (const k of keys) total += k.length;
    this.#bytes = new Uint8Array(total);
    this.#starts = new Int32Array(keys.length);
    this.#ends = new Int32Array(keys.length);
    let cap = 8;
    while (cap < 2 * keys.length) cap *= 2;
    this.#slots = new Int32Array(cap);
    this.#mask = cap - 1;
    let at = 0,
      size = 0;
    for (const k of keys) {
      this.#bytes.set(k, at);
      if (this.has(this.#bytes, at, at + k.length)) continue;
      this.#starts[size] = at;
      this.#ends[size] = at + k.length;
      let slot = hash(this.#bytes, at, at + k.length) & this.#mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = ++size;
      at += k.length;
    }
    this.size = size;
  }

  /** Whether bytes[s, e) is in the set. */
  has(bytes: Uint8Array, s: number, e: number): boolean {
    const len = e - s;
    const keys = this.#bytes,
      starts = this.#starts,
      ends = this.#ends,
      slots = this.#slots,
      mask = this.#mask;
    let slot = hash(bytes, s, e) & mask;
    for (;;) {
      const k = slots[slot]! - 1;
      if (k < 0) return false;
      const ks = starts[k]!;
      if (ends[k]! - ks === len) {
        let same = true;
        for (let j = 0; same && j < len; j++) same = keys[ks + j] === bytes[s + j];
        if (same) return true;
      }
      slot = (slot + 1) & mask;
    }
  }
}
